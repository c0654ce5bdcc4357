package xlaflags

import (
	"context"
	"errors"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
)

func TestSplit(t *testing.T) {
	flags, rest, err := Split([]string{"--server_port=1", "--xla_tpu_scoped_vmem_limit_kib=98304", "-xla_cpu_fast=false", "--xla_dump_hlo_as_text", "--", "--xla_after=1"})
	if err != nil {
		t.Fatal(err)
	}
	want := Flags{"xla_tpu_scoped_vmem_limit_kib": "98304", "xla_cpu_fast": "false", "xla_dump_hlo_as_text": "true"}
	if len(flags) != len(want) {
		t.Errorf("flags = %v, want %v", flags, want)
	}
	for k, v := range want {
		if flags[k] != v {
			t.Errorf("%s = %q, want %q", k, flags[k], v)
		}
	}
	if !slices.Equal(rest, []string{"--server_port=1", "--", "--xla_after=1"}) {
		t.Errorf("rest = %q", rest)
	}
	if got := flags.String(); got != "--xla_cpu_fast=false --xla_dump_hlo_as_text=true --xla_tpu_scoped_vmem_limit_kib=98304" {
		t.Errorf("String = %q", got)
	}
	for _, bad := range []string{"--xla_", "--xla_Bad=1", "--xla_a-b=1"} {
		if _, _, err := Split([]string{bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestMergeKeepsClientOverridesAndOtherFields(t *testing.T) {
	in := &xlapb.CompileOptionsProto{
		ExecutableBuildOptions: &xlapb.ExecutableBuildOptionsProto{NumPartitions: 4},
		EnvOptionOverrides: map[string]*xlapb.OptionOverrideProto{
			"xla_a": {Value: &xlapb.OptionOverrideProto_BoolField{BoolField: false}},
		},
	}
	raw, _ := proto.Marshal(in)
	out, err := Flags{"xla_a": "true", "xla_b": "7"}.Merge(raw)
	if err != nil {
		t.Fatal(err)
	}
	var got xlapb.CompileOptionsProto
	if err := proto.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.GetExecutableBuildOptions().GetNumPartitions() != 4 {
		t.Error("build options lost")
	}
	if v, ok := got.EnvOptionOverrides["xla_a"].GetValue().(*xlapb.OptionOverrideProto_BoolField); !ok || v.BoolField {
		t.Errorf("the client's xla_a was replaced: %v", got.EnvOptionOverrides["xla_a"])
	}
	if got.EnvOptionOverrides["xla_b"].GetIntField() != 7 {
		t.Errorf("xla_b = %v", got.EnvOptionOverrides["xla_b"])
	}
	if _, err := (Flags{"xla_a": "1"}).Merge([]byte{0xff}); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("bad proto: %v", err)
	}
}

// recorder is a client that records the compile options it gets.
type recorder struct {
	ifrt.UnimplementedClient
	got []byte
}

func (r *recorder) Compile(_ context.Context, _ ifrt.Program, opts *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	r.got = opts.XLA
	return nil, nil
}

func TestWrap(t *testing.T) {
	r := &recorder{}
	if Wrap(r, nil) != ifrt.Client(r) {
		t.Error("Wrap with no flags should return the client itself")
	}
	c := Wrap(r, Flags{"xla_b": "x"})
	if _, err := c.Compile(context.Background(), &ifrt.MLIRProgram{}, nil); err != nil {
		t.Fatal(err)
	}
	var got xlapb.CompileOptionsProto
	if err := proto.Unmarshal(r.got, &got); err != nil || got.EnvOptionOverrides["xla_b"].GetStringField() != "x" {
		t.Errorf("the backend got %v (%v)", &got, err)
	}
}

func TestOverrideTypes(t *testing.T) {
	for v, want := range map[string]*xlapb.OptionOverrideProto{
		"true":     {Value: &xlapb.OptionOverrideProto_BoolField{BoolField: true}},
		"false":    {Value: &xlapb.OptionOverrideProto_BoolField{BoolField: false}},
		"98304":    {Value: &xlapb.OptionOverrideProto_IntField{IntField: 98304}},
		"-1":       {Value: &xlapb.OptionOverrideProto_IntField{IntField: -1}},
		"0.5":      {Value: &xlapb.OptionOverrideProto_DoubleField{DoubleField: 0.5}},
		"1e3":      {Value: &xlapb.OptionOverrideProto_DoubleField{DoubleField: 1000}},
		"/tmp/x":   {Value: &xlapb.OptionOverrideProto_StringField{StringField: "/tmp/x"}},
		"fusion.*": {Value: &xlapb.OptionOverrideProto_StringField{StringField: "fusion.*"}},
		"":         {Value: &xlapb.OptionOverrideProto_StringField{StringField: ""}},
	} {
		if got := override(v); !proto.Equal(got, want) {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}

package envconfig

import "testing"

func env(kv map[string]string) Lookup { return func(k string) string { return kv[k] } }

func TestMegascale(t *testing.T) {
	m, err := env(map[string]string{MegascaleNumSlices: "2", MegascaleSliceID: " 1 ", MegascaleCoordinatorAddress: "head"}).Megascale()
	if err != nil || m.NumSlices != 2 || m.SliceID != 1 || m.CoordinatorAddress != "head" {
		t.Errorf("Megascale = %+v, %v", m, err)
	}
	m, err = env(nil).Megascale()
	if err != nil || m.NumSlices != -1 || m.SliceID != -1 {
		t.Errorf("unset: %+v, %v", m, err)
	}
	for _, bad := range []map[string]string{
		{MegascaleSliceID: "x"},
		{MegascaleSliceID: "-1"},
		{MegascaleNumSlices: "0"},
		{MegascaleNumSlices: "2", MegascaleSliceID: "2"},
	} {
		if _, err := env(bad).Megascale(); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestBool(t *testing.T) {
	for v, want := range map[string]bool{"": false, "true": true, "TRUE": true, "1": true, "false": false, "0": false} {
		got, err := env(map[string]string{TPUSkipMDSQuery: v}).Bool(TPUSkipMDSQuery)
		if err != nil || got != want {
			t.Errorf("%q: %v, %v", v, got, err)
		}
	}
	if _, err := env(map[string]string{TPUSkipMDSQuery: "maybe"}).Bool(TPUSkipMDSQuery); err == nil {
		t.Error("maybe: no error")
	}
}

func TestReadsAtCallTime(t *testing.T) {
	var l Lookup // os.Getenv
	t.Setenv(HostAddress, "10.0.0.7")
	if got := l.String(HostAddress); got != "10.0.0.7" {
		t.Errorf("HOST_ADDRESS = %q", got)
	}
	t.Setenv(HostAddress, "10.0.0.8")
	if got := l.String(HostAddress); got != "10.0.0.8" {
		t.Errorf("HOST_ADDRESS after Setenv = %q", got)
	}
}

func TestParseScratchLocation(t *testing.T) {
	for in, want := range map[string]Scratch{
		"":                         {},
		"gs://bucket":              {Scheme: "gs", Bucket: "bucket"},
		"gs://my-bucket/a/b/":      {Scheme: "gs", Bucket: "my-bucket", Path: "a/b"},
		"file:///tmp/scratch":      {Scheme: "file", Path: "/tmp/scratch"},
		"/var/scratch":             {Scheme: "file", Path: "/var/scratch"},
		"relative/dir":             {Scheme: "file", Path: "relative/dir"},
		"gs://b.example.com/x":     {Scheme: "gs", Bucket: "b.example.com", Path: "x"},
		"gs://bucket_name/pathway": {Scheme: "gs", Bucket: "bucket_name", Path: "pathway"},
	} {
		got, err := ParseScratchLocation(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"gs://", "gs://AB", "gs://x", "s3://bucket/x", "file://relative", "gs://-bucket"} {
		if _, err := ParseScratchLocation(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

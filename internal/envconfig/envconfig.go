// Package envconfig is the one place where OpenPathways reads environment
// variables. Library packages never read the environment; binaries call these
// typed accessors and put the values into Config structs.
//
// Every accessor reads the variable when it is called (nothing is cached), so
// tests may use t.Setenv, and takes the lookup function to read from: os.Getenv
// in a binary, a map in a test. A nil lookup means os.Getenv.
//
// The variables are those that Google's Pathways images read, as the JobSets
// of xpk, pathways-job and pathwaysutils set them:
//
//	MEGASCALE_NUM_SLICES           number of slices (a worker's JobSet replicas)
//	MEGASCALE_SLICE_ID             the slice of this worker (its Job index)
//	MEGASCALE_COORDINATOR_ADDRESS  the coordinator (head) host
//	HOST_ADDRESS                   the address this process advertises
//	TPU_SKIP_MDS_QUERY             do not ask the TPU metadata server
//	TPU_WORKER_ID                  this host's index in its slice (GKE sets it on TPU pods)
//
// and OpenPathways' own, which carry the cluster's credentials (so that they
// need not appear on a command line):
//
//	PATHWAYS_CLUSTER_TOKEN         the cluster token
//	PATHWAYS_CLUSTER_TOKEN_FILE    a file holding it (a mounted Kubernetes Secret)
//	PATHWAYS_TLS_CERT, PATHWAYS_TLS_KEY, PATHWAYS_TLS_CA
//	                               PEM files for mutual TLS between the members
//	PATHWAYS_TLS_SERVER_NAME       the name every member's certificate carries
package envconfig

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Names of the variables read by this package.
const (
	MegascaleNumSlices          = "MEGASCALE_NUM_SLICES"
	MegascaleSliceID            = "MEGASCALE_SLICE_ID"
	MegascaleCoordinatorAddress = "MEGASCALE_COORDINATOR_ADDRESS"
	HostAddress                 = "HOST_ADDRESS"
	TPUSkipMDSQuery             = "TPU_SKIP_MDS_QUERY"
	TPUWorkerID                 = "TPU_WORKER_ID"

	ClusterToken     = "PATHWAYS_CLUSTER_TOKEN"
	ClusterTokenFile = "PATHWAYS_CLUSTER_TOKEN_FILE"
	TLSCert          = "PATHWAYS_TLS_CERT"
	TLSKey           = "PATHWAYS_TLS_KEY"
	TLSCA            = "PATHWAYS_TLS_CA"
	TLSServerName    = "PATHWAYS_TLS_SERVER_NAME"
)

// Lookup returns the value of a variable, "" when it is unset.
type Lookup func(name string) string

func (l Lookup) get(name string) string {
	if l == nil {
		return strings.TrimSpace(os.Getenv(name))
	}
	return strings.TrimSpace(l(name))
}

// String returns the variable's value with surrounding space removed, "" when
// unset.
func (l Lookup) String(name string) string { return l.get(name) }

// Int returns the variable as a non-negative integer, ok false when it is unset
// or empty, and an error naming the variable when it is not a number.
func (l Lookup) Int(name string) (v int, ok bool, err error) {
	s := l.get(name)
	if s == "" {
		return 0, false, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, false, fmt.Errorf("%s=%q: want a non-negative integer", name, s)
	}
	return n, true, nil
}

// Bool returns the variable as a boolean (1, t, true, yes, on; 0, f, false,
// no, off, in any case), false when unset, and an error naming the variable
// for anything else.
func (l Lookup) Bool(name string) (bool, error) {
	s := strings.ToLower(l.get(name))
	switch s {
	case "", "0", "f", "false", "no", "off":
		return false, nil
	case "1", "t", "true", "yes", "on":
		return true, nil
	}
	return false, fmt.Errorf("%s=%q: want true or false", name, s)
}

// Megascale is what a worker learns from the MEGASCALE_* variables. Fields are
// -1 or "" when the variable is unset.
type Megascale struct {
	NumSlices          int
	SliceID            int
	CoordinatorAddress string
}

// Megascale reads MEGASCALE_NUM_SLICES, MEGASCALE_SLICE_ID and
// MEGASCALE_COORDINATOR_ADDRESS. It checks that the slice id is below the
// number of slices when both are set.
func (l Lookup) Megascale() (Megascale, error) {
	m := Megascale{NumSlices: -1, SliceID: -1, CoordinatorAddress: l.get(MegascaleCoordinatorAddress)}
	if n, ok, err := l.Int(MegascaleNumSlices); err != nil {
		return m, err
	} else if ok {
		if n == 0 {
			return m, fmt.Errorf("%s=0: want at least 1", MegascaleNumSlices)
		}
		m.NumSlices = n
	}
	if id, ok, err := l.Int(MegascaleSliceID); err != nil {
		return m, err
	} else if ok {
		m.SliceID = id
	}
	if m.NumSlices > 0 && m.SliceID >= m.NumSlices {
		return m, fmt.Errorf("%s=%d is not below %s=%d", MegascaleSliceID, m.SliceID, MegascaleNumSlices, m.NumSlices)
	}
	return m, nil
}

// Scratch is a parsed --gcs_scratch_location: a gs:// bucket path or a local
// directory (file:// URL or plain path).
type Scratch struct {
	// Scheme is "gs" or "file"; "" when no location was given.
	Scheme string
	// Bucket is the bucket of a gs:// location.
	Bucket string
	// Path is the object prefix of a gs:// location (no leading slash), or the
	// local directory.
	Path string
}

func (s Scratch) String() string {
	switch s.Scheme {
	case "gs":
		if s.Path == "" {
			return "gs://" + s.Bucket
		}
		return "gs://" + s.Bucket + "/" + s.Path
	case "file":
		return s.Path
	}
	return ""
}

// ParseScratchLocation validates the value of --gcs_scratch_location, shared by
// the server and proxy_server binaries: "gs://bucket[/prefix]", "file:///dir"
// or a plain directory path. An empty value is no location.
func ParseScratchLocation(v string) (Scratch, error) {
	if v == "" {
		return Scratch{}, nil
	}
	if rest, ok := strings.CutPrefix(v, "gs://"); ok {
		bucket, prefix, _ := strings.Cut(rest, "/")
		if !validBucket(bucket) {
			return Scratch{}, fmt.Errorf("--gcs_scratch_location=%q: %q is not a bucket name (3-63 characters: lower-case letters, digits, '-', '_', '.')", v, bucket)
		}
		return Scratch{Scheme: "gs", Bucket: bucket, Path: strings.Trim(prefix, "/")}, nil
	}
	if rest, ok := strings.CutPrefix(v, "file://"); ok {
		if !strings.HasPrefix(rest, "/") {
			return Scratch{}, fmt.Errorf("--gcs_scratch_location=%q: a file:// location needs an absolute path (file:///dir)", v)
		}
		return Scratch{Scheme: "file", Path: rest}, nil
	}
	if scheme, _, ok := strings.Cut(v, "://"); ok {
		return Scratch{}, fmt.Errorf("--gcs_scratch_location=%q: scheme %q is not supported (gs://, file:// or a path)", v, scheme)
	}
	return Scratch{Scheme: "file", Path: v}, nil
}

// validBucket follows Cloud Storage's bucket naming rules, loosely: 3 to 63
// characters (222 with dots), lower-case letters, digits, '-', '_' and '.',
// starting and ending with a letter or digit.
func validBucket(b string) bool {
	if len(b) < 3 || len(b) > 222 || (len(b) > 63 && !strings.Contains(b, ".")) {
		return false
	}
	for i, r := range b {
		alnum := r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		if (i == 0 || i == len(b)-1) && !alnum {
			return false
		}
		if !alnum && r != '-' && r != '_' && r != '.' {
			return false
		}
	}
	return true
}

package kubernetes

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	"sigs.k8s.io/yaml"

	"github.com/openpathways/pathways/internal/envconfig"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/rm"
)

// manifests are the files checked, relative to this directory.
var manifests = []string{"pathways-cpu.yaml", "pathways-tpu.yaml"}

func TestManifests(t *testing.T) {
	for _, name := range manifests {
		t.Run(name, func(t *testing.T) {
			js := loadJobSet(t, name)
			for _, err := range checkJobSet(js) {
				t.Error(err)
			}
		})
	}
}

// loadJobSet decodes a manifest strictly: a field the JobSet API (or the
// Kubernetes core API under it) does not know is an error.
func loadJobSet(t *testing.T, name string) *jobset.JobSet {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var js jobset.JobSet
	if err := yaml.UnmarshalStrict(data, &js); err != nil {
		t.Fatalf("%s does not decode as a JobSet: %v", name, err)
	}
	if js.APIVersion != jobset.GroupVersion.String() || js.Kind != "JobSet" {
		t.Fatalf("%s is %s %s, want %s JobSet", name, js.APIVersion, js.Kind, jobset.GroupVersion)
	}
	return &js
}

// binary is what a container runs, judged by its image name.
type binary int

const (
	other       binary = iota // a user's program
	serverBin                 // examples/server: RM or worker
	proxyBinary               // examples/proxy_server
)

// flagKind is the type of a binary's flag, as Go's flag package parses it.
type flagKind int

const (
	stringFlag flagKind = iota
	intFlag
	boolFlag
)

// Documented flags of the binaries (docs/deploy.md, DESIGN.md "Binaries match
// the seed"). TestBinaryFlags checks them against the binaries' -help.
var (
	serverFlags = map[string]flagKind{
		"node_type":                stringFlag,
		"server_port":              intFlag,
		"instance_type":            stringFlag,
		"instance_count":           intFlag,
		"resource_manager_address": stringFlag,
		"gcs_scratch_location":     stringFlag,
		"enable_gcs_olm":           boolFlag,
		"backend":                  stringFlag,
	}
	proxyFlags = map[string]flagKind{
		"server_port":              intFlag,
		"resource_manager_address": stringFlag,
		"gcs_scratch_location":     stringFlag,
		"num_elastic_instances":    intFlag,
		"num_elastic_slices":       intFlag,
		"virtual_slices":           stringFlag,
		"large_transfer_directory": stringFlag,
	}
)

// Default ports of the binaries when --server_port is absent.
const (
	defaultRMPort     = 29001
	defaultWorkerPort = 29005
	defaultProxyPort  = 29000
)

// pod is one pod the JobSet controller would create, with the names and labels
// it would give it.
type pod struct {
	rjob       string
	job, index int // job index in the replicated job, completion index in the job
	hostname   string
	ip         string
	labels     map[string]string
	spec       *corev1.PodSpec
}

func (p *pod) String() string { return p.hostname }

// container is a container of a pod, with its environment and arguments as the
// kubelet hands them to the process.
type container struct {
	pod     *pod
	c       *corev1.Container
	binary  binary
	env     map[string]string
	args    []string
	flags   map[string]string // parsed flags (server and proxy only)
	xla     []string          // proxy: --xla_* flags
	port    int               // --server_port, or the default
	role    string            // "rm", "worker", "proxy" or "program"
	sidecar bool              // an init container with restartPolicy: Always
}

func (c *container) String() string { return c.pod.hostname + "/" + c.c.Name }

// cluster is a JobSet expanded into pods and containers.
type cluster struct {
	js        *jobset.JobSet
	namespace string
	subdomain string
	pods      []*pod
	byName    map[string]*pod // every name a pod is reachable at, and its IP
	conts     []*container
	errs      []error
}

func (cl *cluster) errorf(format string, args ...any) {
	cl.errs = append(cl.errs, fmt.Errorf(format, args...))
}

// checkJobSet returns every disagreement it finds in js.
func checkJobSet(js *jobset.JobSet) []error {
	cl := expand(js)
	if len(cl.errs) > 0 {
		return cl.errs
	}
	cl.checkTopology()
	return cl.errs
}

// expand creates the pods as the JobSet controller would (names, labels, DNS)
// and the containers' environment and arguments as the kubelet would.
func expand(js *jobset.JobSet) *cluster {
	cl := &cluster{js: js, namespace: js.Namespace, byName: map[string]*pod{}}
	if cl.namespace == "" {
		cl.namespace = "default"
	}
	nw := js.Spec.Network
	if nw == nil || nw.EnableDNSHostnames == nil || !*nw.EnableDNSHostnames {
		cl.errorf("spec.network.enableDNSHostnames must be true: workers and the proxy reach the head pod by its DNS name")
		return cl
	}
	cl.subdomain = js.Name
	if nw.Subdomain != "" {
		cl.subdomain = nw.Subdomain
	}
	coord := js.Spec.Coordinator
	if coord == nil {
		cl.errorf("spec.coordinator is not set: the %s label the containers read would be missing", jobset.CoordinatorKey)
		return cl
	}
	// The controller's coordinator endpoint: <jobset>-<rjob>-<job>-<pod>.<subdomain>.
	coordinator := fmt.Sprintf("%s-%s-%d-%d.%s", js.Name, coord.ReplicatedJob, coord.JobIndex, coord.PodIndex, cl.subdomain)
	// The JobSet webhook's rules for what the controller will name.
	if errs := validation.IsValidLabelValue(coordinator); len(errs) > 0 {
		cl.errorf("the coordinator label would be %q, which is no valid label value (shorter names?): %s", coordinator, strings.Join(errs, ", "))
	}
	if i := slices.IndexFunc(js.Spec.ReplicatedJobs, func(r jobset.ReplicatedJob) bool { return r.Name == coord.ReplicatedJob }); i >= 0 {
		spec := js.Spec.ReplicatedJobs[i].Template.Spec
		if spec.Completions == nil || spec.CompletionMode == nil || *spec.CompletionMode != "Indexed" {
			cl.errorf("replicatedJob %s holds the coordinator: its job needs completionMode: Indexed and completions set", coord.ReplicatedJob)
		}
	}

	global := 0
	for ri := range js.Spec.ReplicatedJobs {
		rj := &js.Spec.ReplicatedJobs[ri]
		replicas := int(rj.Replicas)
		if replicas == 0 {
			replicas = 1 // the API's default
		}
		jspec := &rj.Template.Spec
		completions := 1
		if jspec.Completions != nil {
			completions = int(*jspec.Completions)
		}
		if jspec.Parallelism != nil && int(*jspec.Parallelism) != completions {
			cl.errorf("replicatedJob %s: parallelism %d != completions %d: every host of a slice must run at once", rj.Name, *jspec.Parallelism, completions)
		}
		if completions > 1 && (jspec.CompletionMode == nil || *jspec.CompletionMode != "Indexed") {
			cl.errorf("replicatedJob %s: %d pods per job need completionMode: Indexed for stable host names", rj.Name, completions)
		}
		for j := range replicas {
			for i := range completions {
				hostname := fmt.Sprintf("%s-%s-%d-%d", js.Name, rj.Name, j, i)
				if errs := validation.IsDNS1035Label(hostname); len(errs) > 0 && j+1 == replicas && i+1 == completions {
					cl.errorf("pod host name %q is no DNS label: %s", hostname, strings.Join(errs, ", "))
				}
				p := &pod{
					rjob: rj.Name, job: j, index: i, hostname: hostname,
					ip:   fmt.Sprintf("10.%d.%d.%d", 100+ri, j, 10+i),
					spec: &rj.Template.Spec.Template.Spec,
					labels: map[string]string{
						jobset.JobSetNameKey:                       js.Name,
						jobset.ReplicatedJobNameKey:                rj.Name,
						jobset.ReplicatedJobReplicas:               strconv.Itoa(replicas),
						jobset.JobIndexKey:                         strconv.Itoa(j),
						jobset.JobGlobalIndexKey:                   strconv.Itoa(global),
						jobset.GlobalReplicasKey:                   "", // filled below
						jobset.CoordinatorKey:                      coordinator,
						"batch.kubernetes.io/job-completion-index": strconv.Itoa(i),
					},
				}
				for k, v := range rj.Template.Spec.Template.Labels {
					p.labels[k] = v
				}
				cl.pods = append(cl.pods, p)
				fqdn := hostname + "." + cl.subdomain
				for _, name := range []string{fqdn, fqdn + "." + cl.namespace, fqdn + "." + cl.namespace + ".svc",
					fqdn + "." + cl.namespace + ".svc.cluster.local", p.ip} {
					cl.byName[name] = p
				}
				global++
			}
		}
	}
	for _, p := range cl.pods {
		p.labels[jobset.GlobalReplicasKey] = strconv.Itoa(global)
	}
	if cl.byName[coordinator] == nil {
		cl.errorf("spec.coordinator names %s, which is no pod of the JobSet", coordinator)
		return cl
	}
	for _, p := range cl.pods {
		for i := range p.spec.InitContainers {
			c := &p.spec.InitContainers[i]
			sidecar := c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
			cl.addContainer(p, c, sidecar)
		}
		for i := range p.spec.Containers {
			cl.addContainer(p, &p.spec.Containers[i], false)
		}
	}
	return cl
}

// binaryOf judges what a container runs by its image's name (the last path
// element, without tag or digest), as an image swap keeps it.
func binaryOf(c *corev1.Container) binary {
	if len(c.Command) > 0 {
		return other
	}
	name := c.Image
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name, _, _ = strings.Cut(name, "@")
	name, _, _ = strings.Cut(name, ":")
	switch {
	case strings.HasPrefix(name, "proxy_server"), strings.HasPrefix(name, "proxy-server"):
		return proxyBinary
	case name == "server" || strings.HasPrefix(name, "server-") || strings.HasPrefix(name, "server_"):
		return serverBin
	}
	return other
}

func (cl *cluster) addContainer(p *pod, c *corev1.Container, sidecar bool) {
	ct := &container{pod: p, c: c, binary: binaryOf(c), sidecar: sidecar}
	env, err := containerEnv(p, c)
	if err != nil {
		cl.errorf("%s: %v", ct, err)
		return
	}
	ct.env = env
	for _, a := range slices.Concat(c.Command, c.Args) {
		x := expandVars(a, env)
		if m := unresolvedVar.FindString(x); m != "" {
			cl.errorf("%s: argument %q refers to %s, which the container's env does not define", ct, a, m)
		}
		ct.args = append(ct.args, x)
	}
	switch ct.binary {
	case serverBin:
		ct.flags, err = parseFlags(ct.args, serverFlags, false)
		ct.role = "worker"
		if ct.flags["node_type"] == "resource_manager" {
			ct.role = "rm"
		}
	case proxyBinary:
		ct.flags, err = parseFlags(ct.args, proxyFlags, true)
		ct.role = "proxy"
		for _, a := range ct.args {
			if strings.HasPrefix(strings.TrimLeft(a, "-"), "xla_") {
				ct.xla = append(ct.xla, a)
			}
		}
	default:
		ct.role = "program"
	}
	if err != nil {
		cl.errorf("%s: %v", ct, err)
		return
	}
	if ct.role != "program" {
		ct.port = map[string]int{"rm": defaultRMPort, "worker": defaultWorkerPort, "proxy": defaultProxyPort}[ct.role]
		if v, ok := ct.flags["server_port"]; ok {
			ct.port, _ = strconv.Atoi(v)
		}
		if !slices.ContainsFunc(c.Ports, func(cp corev1.ContainerPort) bool { return int(cp.ContainerPort) == ct.port }) {
			cl.errorf("%s: --server_port is %d but the container's ports are %v", ct, ct.port, containerPorts(c))
		}
	}
	cl.conts = append(cl.conts, ct)
}

func containerPorts(c *corev1.Container) []int32 {
	var ps []int32
	for _, p := range c.Ports {
		ps = append(ps, p.ContainerPort)
	}
	return ps
}

// unresolvedVar matches a $(VAR) reference the kubelet left as it was.
var unresolvedVar = regexp.MustCompile(`\$\([A-Za-z_][A-Za-z0-9_]*\)`)

// expandVars does the kubelet's $(VAR) expansion: a defined variable is
// replaced, $$ is a literal $, and anything else stays as written.
func expandVars(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
			continue
		case '(':
			if end := strings.IndexByte(s[i:], ')'); end > 0 {
				if v, ok := env[s[i+2:i+end]]; ok {
					b.WriteString(v)
					i += end
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// containerEnv evaluates a container's env list in order, as the kubelet does:
// values may refer to variables defined before them, and fieldRefs read the
// pod's metadata (the downward API).
func containerEnv(p *pod, c *corev1.Container) (map[string]string, error) {
	if len(c.EnvFrom) > 0 {
		return nil, fmt.Errorf("envFrom cannot be checked here; list the variables in env")
	}
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = expandVars(e.Value, env)
		case e.ValueFrom.FieldRef != nil:
			v, err := p.field(e.ValueFrom.FieldRef.FieldPath)
			if err != nil {
				return nil, fmt.Errorf("env %s: %v", e.Name, err)
			}
			env[e.Name] = v
		default:
			// Secrets, config maps, resources: not addresses or counts.
			env[e.Name] = ""
		}
	}
	return env, nil
}

var labelPath = regexp.MustCompile(`^metadata\.labels\['([^']+)'\]$`)

// field is the downward API's value of a fieldPath for the pod.
func (p *pod) field(path string) (string, error) {
	if m := labelPath.FindStringSubmatch(path); m != nil {
		v, ok := p.labels[m[1]]
		if !ok {
			return "", fmt.Errorf("label %q is not set on the pod (the JobSet controller sets the jobset.sigs.k8s.io/ ones)", m[1])
		}
		return v, nil
	}
	switch path {
	case "metadata.name":
		return p.hostname + "-abcde", nil
	case "metadata.namespace":
		return "default", nil
	case "status.podIP":
		return p.ip, nil
	case "spec.nodeName", "status.hostIP":
		return "", fmt.Errorf("fieldPath %s depends on the node; the checks cannot follow it", path)
	}
	return "", fmt.Errorf("fieldPath %s is not supported by these checks", path)
}

// parseFlags parses args with Go's flag package, as the binaries do, against
// the documented flags. With xla, --xla_* flags are let through (the proxy
// passes them to the compiler).
func parseFlags(args []string, known map[string]flagKind, xla bool) (map[string]string, error) {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for name, kind := range known {
		switch kind {
		case intFlag:
			fs.Int(name, 0, "")
		case boolFlag:
			fs.Bool(name, false, "")
		default:
			fs.String(name, "", "")
		}
	}
	var rest []string
	for _, a := range args {
		if xla && strings.HasPrefix(strings.TrimLeft(a, "-"), "xla_") {
			if !strings.HasPrefix(a, "--xla_") || !strings.Contains(a, "=") {
				return nil, fmt.Errorf("%q: XLA flags are written --xla_name=value", a)
			}
			continue
		}
		rest = append(rest, a)
	}
	if err := fs.Parse(rest); err != nil {
		return nil, fmt.Errorf("arguments %q: %v", args, err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	out := map[string]string{}
	fs.Visit(func(f *flag.Flag) { out[f.Name] = f.Value.String() })
	return out, nil
}

// resolve finds the pod a host name or IP reaches from pod from: its own name,
// localhost, or another pod's DNS name (qualified with the JobSet's subdomain)
// or IP.
func (cl *cluster) resolve(from *pod, host string) *pod {
	switch host {
	case "localhost", "127.0.0.1", "::1", from.hostname:
		return from
	}
	return cl.byName[strings.TrimSuffix(host, ".")]
}

// target finds the container that serves hostport, seen from pod from, and
// checks it has the wanted role.
func (cl *cluster) target(from *container, what, hostport, role string) *container {
	host, portStr, err := net.SplitHostPort(strings.TrimPrefix(hostport, "grpc://"))
	if err != nil {
		cl.errorf("%s: %s %q is not host:port", from, what, hostport)
		return nil
	}
	p := cl.resolve(from.pod, host)
	if p == nil {
		cl.errorf("%s: %s %q: host %q is no pod of the JobSet", from, what, hostport, host)
		return nil
	}
	port, _ := strconv.Atoi(portStr)
	for _, c := range cl.conts {
		if c.pod == p && c.role != "program" && c.port == port {
			if c.role != role {
				cl.errorf("%s: %s %q reaches %s (the %s), not the %s", from, what, hostport, c, c.role, role)
				return nil
			}
			return c
		}
	}
	cl.errorf("%s: %s %q: nothing in pod %s serves port %d", from, what, hostport, p, port)
	return nil
}

func (cl *cluster) byRole(role string) []*container {
	var out []*container
	for _, c := range cl.conts {
		if c.role == role {
			out = append(out, c)
		}
	}
	return out
}

// checkTopology checks that the RM, the proxy, the workers and any program
// agree on addresses, ports, slice counts and shapes.
func (cl *cluster) checkTopology() {
	rms, proxies, workers := cl.byRole("rm"), cl.byRole("proxy"), cl.byRole("worker")
	if len(rms) != 1 || len(proxies) != 1 {
		cl.errorf("want one resource manager and one proxy server, have %v and %v", rms, proxies)
		return
	}
	rmc, proxy := rms[0], proxies[0]
	coord := cl.resolve(rmc.pod, rmc.pod.labels[jobset.CoordinatorKey])
	if coord != rmc.pod {
		cl.errorf("%s: the resource manager is not in the coordinator pod %s", rmc, coord)
	}
	if proxy.pod != rmc.pod {
		cl.errorf("%s: the proxy is not in the head pod %s", proxy, rmc.pod)
	}
	head := cl.js.Spec.ReplicatedJobs[slices.IndexFunc(cl.js.Spec.ReplicatedJobs, func(r jobset.ReplicatedJob) bool { return r.Name == rmc.pod.rjob })]
	if head.Replicas > 1 {
		cl.errorf("replicatedJob %s has %d replicas; the head runs once", head.Name, head.Replicas)
	}

	// Servers in one pod share its network: their ports must differ.
	seen := map[string]*container{}
	for _, c := range cl.conts {
		if c.role == "program" {
			continue
		}
		key := c.pod.hostname + ":" + strconv.Itoa(c.port)
		if o := seen[key]; o != nil {
			cl.errorf("%s and %s both listen on port %d", o, c, c.port)
		}
		seen[key] = c
	}

	// Native sidecars: the RM and proxy as init containers only work with
	// restartPolicy: Always (an init container that never exits blocks the pod).
	for _, c := range []*container{rmc, proxy} {
		if slices.ContainsFunc(c.pod.spec.InitContainers, func(ic corev1.Container) bool { return ic.Name == c.c.Name }) && !c.sidecar {
			cl.errorf("%s is an init container without restartPolicy: Always; it would block the pod", c)
		}
	}

	// The shape.
	it, err := rm.ParseInstanceType(rmc.flags["instance_type"])
	if err != nil {
		cl.errorf("%s: --instance_type: %v", rmc, err)
		return
	}
	count := 1
	if v, ok := rmc.flags["instance_count"]; ok {
		count, _ = strconv.Atoi(v)
	}

	// Scratch: the same location everywhere, and one the binaries accept.
	scratch := rmc.flags["gcs_scratch_location"]
	for _, c := range slices.Concat(rms, proxies, workers) {
		v := c.flags["gcs_scratch_location"]
		if _, err := envconfig.ParseScratchLocation(v); err != nil {
			cl.errorf("%s: %v", c, err)
		}
		if v != scratch {
			cl.errorf("%s: --gcs_scratch_location=%q, the resource manager's is %q", c, v, scratch)
		}
	}
	if v, ok := rmc.env[envconfig.HostAddress]; ok && cl.resolve(rmc.pod, v) != rmc.pod {
		cl.errorf("%s: HOST_ADDRESS=%q does not reach its own pod", rmc, v)
	}

	// The proxy.
	cl.target(proxy, "--resource_manager_address", proxy.flags["resource_manager_address"], "rm")
	for _, name := range []string{"num_elastic_instances", "num_elastic_slices"} {
		if v, ok := proxy.flags[name]; ok {
			if n, _ := strconv.Atoi(v); n < 0 || n > count {
				cl.errorf("%s: --%s=%d, but there are %d slices", proxy, name, n, count)
			}
		}
	}
	if v := proxy.flags["virtual_slices"]; v != "" {
		parts := strings.Split(v, ",")
		if len(parts) > count {
			cl.errorf("%s: --virtual_slices asks for %d slices, the resource manager has %d", proxy, len(parts), count)
		}
		for _, s := range parts {
			if _, err := rm.ParseInstanceType(s); err != nil {
				cl.errorf("%s: --virtual_slices: %v", proxy, err)
			}
		}
	}

	// Programs in the JobSet reach the proxy.
	for _, c := range cl.byRole("program") {
		if v, ok := c.env["JAX_BACKEND_TARGET"]; ok {
			if !strings.HasPrefix(v, "grpc://") {
				cl.errorf("%s: JAX_BACKEND_TARGET=%q: want grpc://host:port", c, v)
			}
			cl.target(c, "JAX_BACKEND_TARGET", v, "proxy")
			if c.env["JAX_PLATFORMS"] != "proxy" && !strings.HasPrefix(c.env["JAX_PLATFORMS"], "proxy,") {
				cl.errorf("%s: JAX_BACKEND_TARGET is set but JAX_PLATFORMS=%q does not select proxy", c, c.env["JAX_PLATFORMS"])
			}
		}
	}

	// The workers: one Job per slice, one pod per host, and what each one tells
	// the RM.
	type jobKey struct {
		rjob string
		job  int
	}
	bySlice := map[int][]*container{}
	jobOfSlice := map[int]jobKey{}
	for _, w := range workers {
		cl.target(w, "--resource_manager_address", w.flags["resource_manager_address"], "rm")
		if v, ok := w.flags["instance_type"]; ok && v != it.Name {
			cl.errorf("%s: --instance_type=%s, the resource manager's is %s", w, v, it.Name)
		}
		look := envconfig.Lookup(func(name string) string { return w.env[name] })
		ms, err := look.Megascale()
		if err != nil {
			cl.errorf("%s: %v", w, err)
			continue
		}
		if ms.NumSlices != -1 && ms.NumSlices != count {
			cl.errorf("%s: MEGASCALE_NUM_SLICES=%d, the resource manager has --instance_count=%d", w, ms.NumSlices, count)
		}
		slice := max(ms.SliceID, 0)
		if slice >= count {
			cl.errorf("%s: slice %d, the resource manager has %d slices", w, slice, count)
		}
		if ms.CoordinatorAddress != "" && cl.resolve(w.pod, ms.CoordinatorAddress) != coord {
			cl.errorf("%s: MEGASCALE_COORDINATOR_ADDRESS=%q is not the coordinator pod", w, ms.CoordinatorAddress)
		}
		// The address the worker advertises must reach it from the head pod.
		adv, ok := w.env[envconfig.HostAddress]
		if !ok || adv == "" {
			adv = w.pod.hostname // the worker's default: os.Hostname()
		}
		if h, _, err := net.SplitHostPort(adv); err == nil {
			adv = h
		}
		if cl.resolve(rmc.pod, adv) != w.pod {
			cl.errorf("%s: advertises %q, which the head pod cannot reach it at; set HOST_ADDRESS (e.g. from status.podIP)", w, adv)
		}
		key := jobKey{w.pod.rjob, w.pod.job}
		if k, ok := jobOfSlice[slice]; ok && k != key {
			cl.errorf("%s: slice %d has workers in two jobs (%s-%d and %s-%d)", w, slice, k.rjob, k.job, key.rjob, key.job)
		}
		jobOfSlice[slice] = key
		bySlice[slice] = append(bySlice[slice], w)
		cl.checkWorkerResources(w, it)
	}
	for s := range count {
		if n := len(bySlice[s]); n != it.Hosts {
			cl.errorf("slice %d has %d worker pods; %s needs %d (one per host)", s, n, it.Name, it.Hosts)
		}
	}
	if len(bySlice) > count {
		cl.errorf("workers claim %d slices, the resource manager has --instance_count=%d", len(bySlice), count)
	}
}

// checkWorkerResources checks that a worker can open its host's devices: TPU
// workers ask for the host's chips and run a PJRT plugin; CPU workers ask for
// no TPU.
func (cl *cluster) checkWorkerResources(w *container, it rm.InstanceType) {
	backend := w.flags["backend"]
	if backend == "" {
		backend = "gocpu"
	}
	tpus := 0
	if q, ok := w.c.Resources.Limits["google.com/tpu"]; ok {
		tpus = int(q.Value())
	}
	switch it.Platform {
	case "tpu":
		if tpus != it.ChipsPerHost {
			cl.errorf("%s: limits google.com/tpu=%d, a host of %s has %d chips", w, tpus, it.Name, it.ChipsPerHost)
		}
		if !strings.HasPrefix(backend, "pjrt:") {
			cl.errorf("%s: --backend=%s cannot open TPUs; use pjrt:<path to libtpu.so>", w, backend)
		}
	default:
		if tpus != 0 {
			cl.errorf("%s: asks for %d TPUs for %s slices", w, tpus, it.Name)
		}
	}
}

// TestChecksCatchMistakes breaks the manifests in the ways people do and
// expects the checks to say so.
func TestChecksCatchMistakes(t *testing.T) {
	head := func(js *jobset.JobSet) *corev1.PodSpec { return &js.Spec.ReplicatedJobs[0].Template.Spec.Template.Spec }
	worker := func(js *jobset.JobSet) *corev1.Container {
		return &js.Spec.ReplicatedJobs[1].Template.Spec.Template.Spec.Containers[0]
	}
	setEnv := func(c *corev1.Container, name string, v *corev1.EnvVar) {
		for i, e := range c.Env {
			if e.Name == name {
				if v == nil {
					c.Env = slices.Delete(c.Env, i, i+1)
				} else {
					c.Env[i] = *v
				}
				return
			}
		}
	}
	replaceArg := func(c *corev1.Container, prefix, arg string) {
		for i, a := range c.Args {
			if strings.HasPrefix(a, prefix) {
				c.Args[i] = arg
				return
			}
		}
		c.Args = append(c.Args, arg)
	}
	tests := []struct {
		name, file string
		mutate     func(js *jobset.JobSet)
		want       string // "" when the change is fine
	}{
		{"own subdomain", "pathways-cpu.yaml", func(js *jobset.JobSet) { js.Spec.Network.Subdomain = "pw" }, ""},
		{"name too long", "pathways-cpu.yaml", func(js *jobset.JobSet) { js.Name = "my-very-long-pathways-cluster-name-for-team-x" }, "no valid label value"},
		{"more worker replicas than slices", "pathways-cpu.yaml", func(js *jobset.JobSet) { js.Spec.ReplicatedJobs[1].Replicas = 3 }, "MEGASCALE_NUM_SLICES=3"},
		{"fewer worker replicas than slices", "pathways-cpu.yaml", func(js *jobset.JobSet) { js.Spec.ReplicatedJobs[1].Replicas = 1 }, "slice 1 has 0 worker pods"},
		{"no DNS hostnames", "pathways-cpu.yaml", func(js *jobset.JobSet) { js.Spec.Network = nil }, "enableDNSHostnames"},
		{"no coordinator", "pathways-cpu.yaml", func(js *jobset.JobSet) { js.Spec.Coordinator = nil }, "spec.coordinator"},
		{"proxy to a wrong RM port", "pathways-cpu.yaml", func(js *jobset.JobSet) {
			replaceArg(&head(js).Containers[1], "--resource_manager_address", "--resource_manager_address=$(PATHWAYS_HEAD):29002")
		}, "serves port 29002"},
		{"worker to the proxy", "pathways-cpu.yaml", func(js *jobset.JobSet) {
			replaceArg(worker(js), "--resource_manager_address", "--resource_manager_address=$(PATHWAYS_HEAD):29000")
		}, "not the rm"},
		{"undefined variable", "pathways-cpu.yaml", func(js *jobset.JobSet) {
			replaceArg(worker(js), "--resource_manager_address", "--resource_manager_address=$(HEAD):29001")
		}, "refers to $(HEAD)"},
		{"unknown flag", "pathways-cpu.yaml", func(js *jobset.JobSet) { replaceArg(worker(js), "--nope", "--nope=1") }, "not defined"},
		{"bad int flag", "pathways-cpu.yaml", func(js *jobset.JobSet) {
			replaceArg(&head(js).Containers[0], "--instance_count", "--instance_count=two")
		}, "invalid value"},
		{"xla flag on the proxy", "pathways-cpu.yaml", func(js *jobset.JobSet) {
			replaceArg(&head(js).Containers[1], "--xla_", "--xla_tpu_scoped_vmem_limit_kib=98304")
		}, ""},
		{"xla flag on a worker", "pathways-cpu.yaml", func(js *jobset.JobSet) { replaceArg(worker(js), "--xla_", "--xla_dump_to=/tmp") }, "not defined"},
		{"undeclared proxy port", "pathways-cpu.yaml", func(js *jobset.JobSet) { head(js).Containers[1].Ports[0].ContainerPort = 29009 }, "--server_port is 29000"},
		{"RM and proxy on one port", "pathways-cpu.yaml", func(js *jobset.JobSet) {
			replaceArg(&head(js).Containers[1], "--server_port", "--server_port=29001")
			head(js).Containers[1].Ports[0].ContainerPort = 29001
		}, "both listen on port 29001"},
		{"worker without HOST_ADDRESS", "pathways-cpu.yaml", func(js *jobset.JobSet) { setEnv(worker(js), "HOST_ADDRESS", nil) }, "set HOST_ADDRESS"},
		{"slice id from the wrong label", "pathways-cpu.yaml", func(js *jobset.JobSet) {
			setEnv(worker(js), "MEGASCALE_SLICE_ID", &corev1.EnvVar{Name: "MEGASCALE_SLICE_ID", ValueFrom: &corev1.EnvVarSource{
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['jobset.sigs.k8s.io/job-global-index']"}}})
		}, "is not below MEGASCALE_NUM_SLICES"},
		{"coordinator address elsewhere", "pathways-cpu.yaml", func(js *jobset.JobSet) {
			setEnv(worker(js), "MEGASCALE_COORDINATOR_ADDRESS", &corev1.EnvVar{Name: "MEGASCALE_COORDINATOR_ADDRESS", Value: "pathways-worker-0-0.pathways"})
		}, "not the coordinator pod"},
		{"scratch differs", "pathways-cpu.yaml", func(js *jobset.JobSet) {
			replaceArg(worker(js), "--gcs_scratch_location", "--gcs_scratch_location=file:///elsewhere")
		}, "the resource manager's is"},
		{"too many elastic slices", "pathways-cpu.yaml", func(js *jobset.JobSet) {
			replaceArg(&head(js).Containers[1], "--num_elastic_instances", "--num_elastic_instances=3")
		}, "--num_elastic_instances=3"},
		{"TPU limit per host", "pathways-tpu.yaml", func(js *jobset.JobSet) {
			worker(js).Resources.Limits["google.com/tpu"] = resourceQuantity(t, "8")
		}, "google.com/tpu=8"},
		{"TPU hosts per slice", "pathways-tpu.yaml", func(js *jobset.JobSet) {
			two := int32(2)
			js.Spec.ReplicatedJobs[1].Template.Spec.Completions = &two
			js.Spec.ReplicatedJobs[1].Template.Spec.Parallelism = &two
		}, "slice 0 has 2 worker pods; tpuv5e:4x4 needs 4"},
		{"CPU slices of two hosts", "pathways-cpu.yaml", func(js *jobset.JobSet) {
			replaceArg(&head(js).Containers[0], "--instance_type", "--instance_type=cpu:2hx4")
			two := int32(2)
			js.Spec.ReplicatedJobs[1].Template.Spec.Completions = &two
			js.Spec.ReplicatedJobs[1].Template.Spec.Parallelism = &two
		}, ""},
		{"CPU slices of two hosts, one pod each", "pathways-cpu.yaml", func(js *jobset.JobSet) {
			replaceArg(&head(js).Containers[0], "--instance_type", "--instance_type=cpu:2hx4")
		}, "slice 0 has 1 worker pods; cpu:2hx4 needs 2"},
		{"TPU worker on gocpu", "pathways-tpu.yaml", func(js *jobset.JobSet) { replaceArg(worker(js), "--backend", "--backend=gocpu") }, "cannot open TPUs"},
		{"sidecar that never ends", "pathways-tpu.yaml", func(js *jobset.JobSet) { head(js).InitContainers[0].RestartPolicy = nil }, "without restartPolicy: Always"},
		{"program to the RM", "pathways-tpu.yaml", func(js *jobset.JobSet) {
			setEnv(&head(js).Containers[0], "JAX_BACKEND_TARGET", &corev1.EnvVar{Name: "JAX_BACKEND_TARGET", Value: "grpc://$(PATHWAYS_HEAD):29001"})
		}, "not the proxy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			js := loadJobSet(t, tt.file)
			tt.mutate(js)
			errs := checkJobSet(js)
			if tt.want == "" {
				for _, err := range errs {
					t.Error(err)
				}
				return
			}
			for _, err := range errs {
				if strings.Contains(err.Error(), tt.want) {
					return
				}
			}
			t.Errorf("no error mentions %q; got %v", tt.want, errs)
		})
	}
}

func resourceQuantity(t *testing.T, s string) resource.Quantity {
	t.Helper()
	q, err := resource.ParseQuantity(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestBinaryFlags checks the documented flags the manifest checks use against
// the flags the binaries really define (their -help), so that a renamed or
// removed flag cannot leave the manifests passing here and failing in a pod.
func TestBinaryFlags(t *testing.T) {
	for _, tt := range []struct {
		pkg   string
		flags map[string]flagKind
	}{
		{"server", serverFlags},
		{"proxy_server", proxyFlags},
	} {
		t.Run(tt.pkg, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join("..", tt.pkg, "main.go")); err != nil {
				t.Skipf("no examples/%s in this tree: %v", tt.pkg, err)
			}
			ctx := testenv.Context(t, 3*time.Minute)
			bin := filepath.Join(t.TempDir(), tt.pkg)
			if out, err := exec.CommandContext(ctx, goCommand(), "build", "-o", bin, "../"+tt.pkg).CombinedOutput(); err != nil {
				t.Fatalf("go build ../%s: %v\n%s", tt.pkg, err, out)
			}
			help := exec.CommandContext(ctx, bin, "-help")
			help.Env = []string{} // no MEGASCALE_* or other settings from this process
			out, _ := help.CombinedOutput()
			defined := helpFlags(string(out))
			if len(defined) == 0 {
				t.Fatalf("%s -help lists no flags:\n%s", tt.pkg, out)
			}
			for name, kind := range tt.flags {
				isBool, ok := defined[name]
				switch {
				case !ok:
					t.Errorf("%s has no --%s, which the manifests may use", tt.pkg, name)
				case isBool != (kind == boolFlag):
					t.Errorf("%s --%s: boolean is %v in the binary, %v here", tt.pkg, name, isBool, kind == boolFlag)
				}
			}
		})
	}
}

// helpLine matches a flag line of Go's flag.PrintDefaults: "  -name" for a
// boolean, "  -name type" otherwise.
var helpLine = regexp.MustCompile(`(?m)^  -([A-Za-z0-9_.-]+)([ \t]+\S+)?$`)

// helpFlags returns the flags a -help output lists, and whether each is a
// boolean (printed without a type word).
func helpFlags(out string) map[string]bool {
	flags := map[string]bool{}
	for _, m := range helpLine.FindAllStringSubmatch(out, -1) {
		flags[m[1]] = m[2] == ""
	}
	return flags
}

func goCommand() string {
	//lint:ignore SA1019 the go command of the toolchain that built this test is the one to build the images' binaries with
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Package kubernetes holds JobSet manifests that run an OpenPathways cluster on
// Kubernetes with the same shape, flags, ports and environment as Google's
// Pathways on Cloud manifests (as xpk and pathways-job generate them), and the
// Dockerfile for the images they name:
//
//	pathways-tpu.yaml   GKE TPU slices, the RM and proxy as sidecars of a JAX program
//	pathways-cpu.yaml   any cluster (kind too): CPU slices on the pure-Go backend
//	Dockerfile          the server, server-tpu and proxy_server images
//
// The package has no code. Its test decodes each manifest with the JobSet API
// types, plays the JobSet controller's part (pod names, labels, the headless
// service's DNS names) and the kubelet's (environment and $(VAR) expansion), and
// checks that every flag is one the binaries take and that the addresses,
// ports, slice counts and MEGASCALE_* variables agree. See docs/deploy.md.
package kubernetes

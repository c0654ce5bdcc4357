# Shared by the GPU checks (scripts/gpu_multiprocess.sh, scripts/gpu_jax_proxy.sh);
# sourced, not run.

# find_cuda_plugin [python]: prints the path of the CUDA PJRT plugin
# (xla_cuda_plugin.so) that jax-cuda13-pjrt or jax-cuda12-pjrt installed for
# that interpreter (default python3), first found wins; prints nothing and
# fails when neither is installed.
find_cuda_plugin() {
	"${1:-python3}" - <<'EOF' 2>/dev/null
import importlib.util, os
for name in ("jax_plugins.xla_cuda13", "jax_plugins.xla_cuda12"):
    try:
        spec = importlib.util.find_spec(name)
    except ImportError:
        continue
    if spec and spec.submodule_search_locations:
        for d in spec.submodule_search_locations:
            so = os.path.join(d, "xla_cuda_plugin.so")
            if os.path.exists(so):
                print(so)
                raise SystemExit
raise SystemExit(1)
EOF
}

# cuda_env: the environment the CUDA plugin runs in. XLA looks for ptxas and
# libdevice in /usr/local/cuda when the nvidia wheels beside the plugin lack
# them; TF_CPP_MIN_LOG_LEVEL quiets XLA's info logs.
cuda_env() {
	if [ -z "${XLA_FLAGS:-}" ] && [ -d /usr/local/cuda ]; then
		export XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda
	fi
	export TF_CPP_MIN_LOG_LEVEL=${TF_CPP_MIN_LOG_LEVEL:-1}
}

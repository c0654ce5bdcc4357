package proxy

import (
	"log/slog"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"google.golang.org/grpc"
)

// DefaultConnectTimeout bounds Dial when neither WithConnectTimeout nor the
// context's deadline says otherwise. It is jaxlib's default.
const DefaultConnectTimeout = 2 * time.Minute

// An Option configures Dial. Options are made by the With... functions of this
// package.
type Option interface {
	apply(*options)
}

type options struct {
	dialOptions    []grpc.DialOption
	insecure       bool
	logger         *slog.Logger
	connectTimeout time.Duration
	onDisconnect   func(error)
	initData       ifrt.Attributes
	async          bool
	asyncExecute   bool
}

func defaultOptions() options {
	return options{connectTimeout: DefaultConnectTimeout}
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithDialOptions adds gRPC dial options (credentials, interceptors, a custom
// dialer such as bufconn's). When any are given, Dial adds no transport
// credentials of its own: pass grpc.WithTransportCredentials among them, or add
// WithInsecure.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return optionFunc(func(o *options) { o.dialOptions = append(o.dialOptions, opts...) })
}

// WithInsecure makes Dial use plaintext connections (no TLS), as jaxlib does with
// IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true. Without any option, Dial uses
// plaintext too; WithInsecure is needed only next to WithDialOptions.
func WithInsecure() Option {
	return optionFunc(func(o *options) { o.insecure = true })
}

// WithLogger sets the logger for the client's diagnostics (the negotiated
// version, a lost connection, failed background requests). Default
// slog.Default().
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(o *options) { o.logger = l })
}

// WithConnectTimeout bounds how long Dial keeps trying to reach the server (it
// retries every second while the server is unavailable, as jaxlib does). Default
// DefaultConnectTimeout; zero or less means no limit but the context passed to
// Dial, which can end it sooner in any case.
func WithConnectTimeout(d time.Duration) Option {
	return optionFunc(func(o *options) { o.connectTimeout = d })
}

// WithOnDisconnect sets a function called once, with the error, when the session
// with the server ends other than by Close: the connection dropped or the server
// ended the session. The client is unusable afterwards. It is jaxlib's
// on_disconnect callback.
func WithOnDisconnect(f func(error)) Option {
	return optionFunc(func(o *options) { o.onDisconnect = f })
}

// WithInitializationData sets the attributes sent to the server when the session
// starts (jaxlib's ClientConnectionOptions.initialization_data). Values are of the
// types ifrt.Attributes allows.
func WithInitializationData(attrs ifrt.Attributes) Option {
	return optionFunc(func(o *options) { o.initData = attrs })
}

// WithAsyncDispatch makes array operations and executions return as soon as
// their request is sent, without waiting for the server's response, as jaxlib
// does: the result arrays are named by client-generated handles, so they can be
// used at once, and the server runs requests in order. It saves a round trip
// per call, which matters when the server is far away or many small operations
// follow each other.
//
// The cost: errors the client cannot detect itself (it checks specs, sizes,
// devices, deleted arrays and remap plans) no longer come back from the call
// but from later uses of its results: Ready, CopyToHostBuffer, and operations
// taking them. MakeArrayFromHostBuffer does not wait for its upload either: it
// uploads a copy of the data, or, when HostBufferOptions.Semantics lets it
// read the caller's buffer until OnDoneWithHostBuffer, the buffer itself, and
// calls OnDoneWithHostBuffer once the upload is done (Close cancels uploads
// still going). The first execution of an executable still waits, to learn the
// output specs.
func WithAsyncDispatch() Option {
	return optionFunc(func(o *options) { o.async = true })
}

// WithAsyncExecute is WithAsyncDispatch for executions alone: every execution
// after an executable's first returns once its request is sent, and its
// errors come from its outputs (and its status); array operations still wait
// for the server. The Pathways cluster client runs its workers' programs so,
// keeping a worker round trip off each step.
func WithAsyncExecute() Option {
	return optionFunc(func(o *options) { o.asyncExecute = true })
}

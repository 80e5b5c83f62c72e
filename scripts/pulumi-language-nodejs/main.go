// Command pulumi-language-nodejs is a minimal Pulumi language host for Node.js programs, in
// TypeScript (through ts-node, as Pulumi's own host does) or compiled JavaScript.
//
// keyform builds the Pulumi CLI from Go modules, but the official Node.js language host module
// cannot be fetched through the module proxy, so this small replacement is built next to the CLI
// by scripts/install-pulumi. It only runs programs: dependencies are expected to be installed
// already (npm ci) and no plugins are reported, because keyform's resources are dynamic
// resources served by the bundled pulumi-resource-pulumi-nodejs launcher.
//
// The engine starts it with the engine's gRPC address as the only positional argument and reads
// the port it listens on from the first line of stdout, like every other plugin.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

const (
	// Module that @pulumi/pulumi ships to bootstrap a program; resolved from the program directory so
	// the program runs against the SDK copy it depends on.
	defaultRunModule = "@pulumi/pulumi/cmd/run"

	// Exit code with which @pulumi/pulumi's runner says it already showed the user an actionable
	// error; the engine should then stop without adding a second, generic message.
	exitCodeAlreadyReported = 32

	// How often to check that the engine is still alive, so an orphaned host does not linger.
	engineHealthInterval = 30 * time.Second
)

// inspectGuard is preloaded into every program (see inspect-guard.cjs for the why): without it, a
// program that throws is reported only after 20-50 s on Node.js releases whose util.inspect loops
// on the stack frames @pulumi/pulumi's runner produces.
//
//go:embed inspect-guard.cjs
var inspectGuard []byte

func main() {
	tracing := flag.String("tracing", "", "Zipkin-compatible tracing endpoint, forwarded to the program")
	showVersion := flag.Bool("version", false, "print the plugin version and exit")
	flag.Parse()

	if *showVersion {
		fmt.Println(version.Version)
		return
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	h := newHost(ctx, flag.Arg(0), *tracing)
	if h.engineAddress != "" {
		if err := rpcutil.Healthcheck(ctx, h.engineAddress, engineHealthInterval, stop); err != nil {
			fatalf("could not watch the engine at %s: %v", h.engineAddress, err)
		}
	}

	// rpcutil stops the server gracefully once this channel is closed (on interrupt or when the
	// engine disappears).
	serverCancel := make(chan bool)
	go func() {
		<-ctx.Done()
		close(serverCancel)
	}()

	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: serverCancel,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, h)
			return nil
		},
	})
	if err != nil {
		fatalf("could not start the language host gRPC server: %v", err)
	}

	// The engine waits for exactly this line before it dials us.
	fmt.Printf("%d\n", handle.Port)

	if err := <-handle.Done; err != nil {
		fatalf("language host gRPC server stopped: %v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: "+format+"\n", args...)
	os.Exit(1)
}

// host implements pulumirpc.LanguageRuntimeServer. Methods it does not override (code generation,
// packing, linking, plugins written in Node.js) answer Unimplemented, which the engine tolerates
// for the commands keyform uses: up, preview, refresh, destroy.
type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

	mu            sync.Mutex
	engineAddress string
	tracing       string

	// Cancelled by the Cancel RPC or an interrupt; a running program receives SIGINT.
	cancelCtx context.Context
	cancel    context.CancelFunc

	// Where inspectGuard was written, once per host process.
	guardOnce sync.Once
	guardPath string
	guardErr  error
}

func newHost(parent context.Context, engineAddress, tracing string) *host {
	ctx, cancel := context.WithCancel(parent)
	return &host{engineAddress: engineAddress, tracing: tracing, cancelCtx: ctx, cancel: cancel}
}

// Handshake is only used when the engine attaches to an already running host
// (PULUMI_DEBUG_LANGUAGES); a launched host gets the engine address on its command line instead.
func (h *host) Handshake(
	ctx context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	h.mu.Lock()
	h.engineAddress = req.GetEngineAddress()
	h.mu.Unlock()
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

// GetRequiredPlugins reports nothing: keyform's resources are dynamic, and the dynamic-provider
// launcher ships next to the CLI, so there is nothing for the engine to download.
func (h *host) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *host) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

// InstallDependencies succeeds without installing: keyform projects install with `npm ci` before
// the CLI runs, and a language host that ran npm itself would race with that.
func (h *host) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	msg := "keyform's Node.js language host does not install dependencies; run `npm ci` in " +
		req.GetInfo().GetProgramDirectory() + "\n"
	return server.Send(&pulumirpc.InstallDependenciesResponse{Stdout: []byte(msg)})
}

func (h *host) RuntimeOptionsPrompts(
	context.Context, *pulumirpc.RuntimeOptionsRequest,
) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

func (h *host) About(ctx context.Context, _ *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("could not find node on the PATH: %w", err)
	}
	resp := &pulumirpc.AboutResponse{Executable: nodeBin, Metadata: map[string]string{"host": "keyform"}}
	// A missing version is not worth failing `pulumi about` for.
	if out, err := exec.CommandContext(ctx, nodeBin, "--version").Output(); err == nil {
		resp.Version = strings.TrimSpace(string(out))
	}
	return resp, nil
}

// GetProgramDependencies reports none; listing them would mean reimplementing npm's tree walk,
// and the engine only uses the answer for `pulumi about` and update metadata.
func (h *host) GetProgramDependencies(
	context.Context, *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	return &pulumirpc.GetProgramDependenciesResponse{}, nil
}

func (h *host) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	h.cancel()
	return &emptypb.Empty{}, nil
}

// nodeOptions are the runtime options of Pulumi.yaml (`runtime.options`) this host honours.
type nodeOptions struct {
	typescript *bool  // load ts-node; nil means the default, yes
	tsconfig   string // tsconfig path handed to ts-node
	nodeargs   string // extra arguments for the node process, split on whitespace
}

func parseOptions(raw map[string]any) (nodeOptions, error) {
	var opts nodeOptions
	if v, ok := raw["typescript"]; ok {
		b, ok := v.(bool)
		if !ok {
			return opts, errors.New("runtime option typescript must be a boolean")
		}
		opts.typescript = &b
	}
	if v, ok := raw["tsconfig"]; ok {
		s, ok := v.(string)
		if !ok {
			return opts, errors.New("runtime option tsconfig must be a string")
		}
		opts.tsconfig = s
	}
	if v, ok := raw["nodeargs"]; ok {
		s, ok := v.(string)
		if !ok {
			return opts, errors.New("runtime option nodeargs must be a string")
		}
		opts.nodeargs = s
	}
	return opts, nil
}

// Run starts the program through @pulumi/pulumi's runner and waits for it. Program failures are
// reported in the response (not as an RPC error), which is how the engine tells a failing program
// from a broken host.
func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	programDir := info.GetProgramDirectory()
	if programDir == "" {
		programDir = req.GetPwd()
	}
	entryPoint := info.GetEntryPoint()
	if entryPoint == "" {
		entryPoint = req.GetProgram()
	}
	if entryPoint == "" {
		entryPoint = "." // let the runner use package.json's main
	}

	opts, err := parseOptions(info.GetOptions().AsMap())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return &pulumirpc.RunResponse{Error: "could not find node on the PATH: " + err.Error()}, nil
	}

	runModule := os.Getenv("PULUMI_LANGUAGE_NODEJS_RUN_PATH")
	if runModule == "" {
		runModule = defaultRunModule
	}
	runPath, err := resolveModule(ctx, nodeBin, programDir, runModule)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	h.mu.Lock()
	engineAddress := h.engineAddress
	h.mu.Unlock()

	// The guard goes first so it is in place before anything (user preloads included) formats errors.
	// Without it programs still run; only the report of an uncaught error may be slow.
	var args []string
	if guardPath, err := h.inspectGuardPath(); err != nil {
		fmt.Fprintf(os.Stderr, "warning: %v\n", err)
	} else {
		args = append(args, "--require", guardPath)
	}
	args = append(args, strings.Fields(opts.nodeargs)...)
	// Flags understood by @pulumi/pulumi/cmd/run (it parses them with minimist).
	args = append(args, runPath)
	flagIfSet := func(name, value string) {
		if value != "" {
			args = append(args, "--"+name, value)
		}
	}
	flagIfSet("monitor", req.GetMonitorAddress())
	flagIfSet("engine", engineAddress)
	flagIfSet("organization", req.GetOrganization())
	flagIfSet("project", req.GetProject())
	flagIfSet("root-directory", info.GetRootDirectory())
	flagIfSet("stack", req.GetStack())
	flagIfSet("pwd", programDir)
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	flagIfSet("parallel", strconv.Itoa(int(req.GetParallel())))
	flagIfSet("tracing", h.tracing)
	args = append(args, entryPoint)
	args = append(args, req.GetArgs()...)

	// The runner reads configuration from the environment, not from flags.
	config, err := json.Marshal(nonNilMap(req.GetConfig()))
	if err != nil {
		return nil, fmt.Errorf("serialising the stack configuration: %w", err)
	}
	secretKeys, err := json.Marshal(nonNilSlice(req.GetConfigSecretKeys()))
	if err != nil {
		return nil, fmt.Errorf("serialising the secret configuration keys: %w", err)
	}
	env := append(os.Environ(),
		"PULUMI_CONFIG="+string(config),
		"PULUMI_CONFIG_SECRET_KEYS="+string(secretKeys),
	)
	if useTypeScript(opts) {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	if opts.tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+opts.tsconfig)
	}

	// Stop the program when either the engine cancels the whole operation or this RPC ends.
	cmdCtx, cmdCancel := context.WithCancel(h.cancelCtx)
	defer cmdCancel()
	stopWatching := context.AfterFunc(ctx, cmdCancel)
	defer stopWatching()

	cmd := exec.CommandContext(cmdCtx, nodeBin, args...)
	cmd.Dir = programDir
	cmd.Env = env
	// Interrupt first so the runner can flush its pending resource registrations.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	// Wrapping the writers forces pipes: handing node our own stdio file descriptors lets it switch
	// them to non-blocking mode, which can make our later writes to them fail.
	cmd.Stdout = struct{ io.Writer }{os.Stdout}
	cmd.Stderr = struct{ io.Writer }{os.Stderr}

	runErr := cmd.Run()
	if runErr == nil {
		return &pulumirpc.RunResponse{}, nil
	}
	var exitErr *exec.ExitError
	if errors.As(runErr, &exitErr) {
		switch code := exitErr.ExitCode(); code {
		case exitCodeAlreadyReported:
			return &pulumirpc.RunResponse{Bail: true}, nil
		case 0, -1:
			return &pulumirpc.RunResponse{Error: "Program exited unexpectedly: " + runErr.Error()}, nil
		default:
			return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", code)}, nil
		}
	}
	return &pulumirpc.RunResponse{
		Error: "Problem executing program (could not run node): " + runErr.Error(),
	}, nil
}

// inspectGuardPath writes inspectGuard to the per-user cache (node can only preload a file) and
// returns its path. The name carries a hash of the content, so a host of another version never
// loads a stale copy, and a file that is already there is reused as long as it is intact.
func (h *host) inspectGuardPath() (string, error) {
	h.guardOnce.Do(func() {
		h.guardPath, h.guardErr = writeInspectGuard()
		if h.guardErr != nil {
			h.guardErr = fmt.Errorf("could not write the language host's preload script (%w); a program that "+
				"throws may take tens of seconds to be reported: set XDG_CACHE_HOME to a writable folder", h.guardErr)
		}
	})
	return h.guardPath, h.guardErr
}

func writeInspectGuard() (string, error) {
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(inspectGuard)
	dir := filepath.Join(cacheDir, "keyform", "pulumi-language-nodejs")
	path := filepath.Join(dir, fmt.Sprintf("inspect-guard-%x.cjs", sum[:6]))
	if existing, err := os.ReadFile(path); err == nil && bytes.Equal(existing, inspectGuard) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Write beside and rename, so a concurrent host never preloads a half-written file.
	tmp, err := os.CreateTemp(dir, ".inspect-guard-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	if _, err := tmp.Write(inspectGuard); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	return path, nil
}

// useTypeScript decides whether the runner registers ts-node. Like Pulumi's own host, the default
// is yes, so a `pulumi new typescript`-shaped project (index.ts, no build step) runs as it is; a
// project that compiles first can turn it off with `runtime.options.typescript: false` to save
// the start-up of ts-node. Compiled JavaScript runs either way: ts-node only handles .ts files.
func useTypeScript(opts nodeOptions) bool {
	if opts.typescript != nil {
		return *opts.typescript
	}
	return true
}

// resolveModule asks node to resolve a module from the program directory, so the program and the
// runner agree on which @pulumi/pulumi they load.
func resolveModule(ctx context.Context, nodeBin, dir, module string) (string, error) {
	quoted, err := json.Marshal(module)
	if err != nil {
		return "", err
	}
	// Print only the first line of a failure: node's full dump (require stack, source line) says
	// nothing more that helps here.
	script := fmt.Sprintf(
		"try { process.stdout.write(require.resolve(%s)) } "+
			"catch (e) { process.stderr.write(String(e.message).split('\\n')[0]); process.exit(1) }",
		quoted)
	cmd := exec.CommandContext(ctx, nodeBin, "-e", script)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		detail := err.Error()
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) && len(exitErr.Stderr) > 0 {
			detail = strings.TrimSpace(string(exitErr.Stderr))
		}
		return "", fmt.Errorf("could not resolve %s from %s (%s): install @pulumi/pulumi in the project "+
			"(npm ci), or point NODE_PATH at a node_modules folder that has it", module, dir, detail)
	}
	return strings.TrimSpace(string(out)), nil
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func nonNilSlice(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

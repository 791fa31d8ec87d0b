//lint:file-ignore SA1019 PROTOCOL.md section 9 takes the root from the client's MCP roots, which 2026-07-28 deprecates but keeps working.

package mcp

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termhelper/termhelper/engine"
)

// errNoRoot refuses every call when no project root could be had: a
// helper started from / or the home folder must not make either the
// project.
var errNoRoot = errors.New("no project root: the client named none, and the working directory is / or the home folder. " +
	"Start termhelper with --root DIR (the project's folder)")

const rootsKey = "roots"

// engineFor is the engine calls run on, opened at the first call: --root,
// else the client's first root (asked with roots/list, or on 2026-07-28
// with a multi round-trip request, whose result then is returned), else
// the working directory when it may be the project.
func (f *front) engineFor(ctx context.Context, req *sdk.CallToolRequest) (*engine.Engine, *sdk.CallToolResult, error) {
	select {
	case <-f.opened:
		return f.eng, nil, f.openErr
	default:
	}
	root, asked := f.clientRoot(ctx, req)
	if asked != nil {
		return nil, asked, nil
	}
	if root == "" {
		root = f.opts.Fallback
	}
	if root == "" {
		return nil, nil, errNoRoot
	}
	f.open(root)
	<-f.opened
	return f.eng, nil, f.openErr
}

// clientRoot is the client's first root, "" when it declares none.
func (f *front) clientRoot(ctx context.Context, req *sdk.CallToolRequest) (string, *sdk.CallToolResult) {
	ip := req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.RootsV2 == nil {
		return "", nil
	}
	var res *sdk.ListRootsResult
	if ip.ProtocolVersion >= revision2026 {
		var ok bool
		if res, ok = req.Params.InputResponses[rootsKey].(*sdk.ListRootsResult); !ok {
			return "", &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{rootsKey: &sdk.ListRootsParams{}}}
		}
	} else {
		ctx, cancel := f.asking(ctx)
		defer cancel()
		var err error
		if res, err = req.Session.ListRoots(ctx, &sdk.ListRootsParams{}); err != nil {
			f.log.Warn("the client declares roots but did not list them", "err", err)
			return "", nil
		}
	}
	for _, r := range res.Roots {
		if dir := rootPath(r.URI); dir != "" {
			return dir, nil
		}
	}
	return "", nil
}

// rootPath is the folder a file:// URI names, "" for any other URI.
func rootPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return ""
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/") // file:///C:/dir
	}
	return filepath.FromSlash(p)
}

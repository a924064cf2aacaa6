// ref_go.go - the reference resolver for Go calls: go/parser and go/types.
//
//	go build -o ref_go ref_go.go && ./ref_go ROOT FILE...   (FILE relative to ROOT)
//
// Type-checks every package of the module at ROOT (go.mod's module path;
// files chosen by build constraints as `go build` on this machine would,
// a package together with its in-package _test.go files) and prints one JSON
// line per call in each FILE: a call whose callee is a name (f(x)) or a
// selector (x.f(x), pkg.F(x)), at the callee's last name, with the object
// go/types says it uses:
//
//	ref "repo"      a function or method declared in the module (defs: the
//	                line of its name; a method of an interface is the line
//	                of the interface's method, why "dynamic: ...")
//	ref "external"  the standard library, a builtin, another module
//	ref "unknown"   a call through a variable or field of function type,
//	                or a name go/types could not resolve (its package is
//	                not on this machine: other modules are not downloaded)
//
// Conversions (T(x)) are not calls and are left out. The standard library is
// imported from source (importer.ForCompiler "source"); the module's own
// packages are type-checked from the checkout.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type site struct {
	Path string  `json:"path"`
	Line int     `json:"line"`
	Col  int     `json:"col"`
	Name string  `json:"name"`
	Ref  string  `json:"ref"`
	Defs [][]any `json:"defs"`
	Why  string  `json:"why"`
}

type dirPkg struct {
	files []*ast.File // the package's non-test files
	tests []*ast.File // its in-package _test.go files
	xtest []*ast.File // package p_test
}

var (
	root, module string
	fset         = token.NewFileSet()
	dirs         = map[string]*dirPkg{} // directory relative to root -> files
	std          types.Importer
	checked      = map[string]*types.Package{}
)

type imp struct{}

func (imp) Import(path string) (*types.Package, error) {
	if path == module || strings.HasPrefix(path, module+"/") {
		rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
		if rel == "" {
			rel = "."
		}
		if p, ok := checked[rel]; ok {
			return p, nil
		}
		d := dirs[rel]
		if d == nil {
			return nil, fmt.Errorf("no package %s", path)
		}
		conf := types.Config{Importer: imp{}, Error: func(error) {}}
		p, _ := conf.Check(path, fset, d.files, nil)
		checked[rel] = p
		return p, nil
	}
	return std.Import(path)
}

func readModule() string {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "example.invalid/none"
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return "example.invalid/none"
}

func load() {
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		name := fi.Name()
		if fi.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				name == "vendor" || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		dir := filepath.Dir(p)
		if ok, _ := build.Default.MatchFile(dir, name); !ok {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil && f == nil {
			return nil
		}
		rel, _ := filepath.Rel(root, dir)
		d := dirs[rel]
		if d == nil {
			d = &dirPkg{}
			dirs[rel] = d
		}
		switch {
		case strings.HasSuffix(f.Name.Name, "_test"):
			d.xtest = append(d.xtest, f)
		case strings.HasSuffix(name, "_test.go"):
			d.tests = append(d.tests, f)
		default:
			d.files = append(d.files, f)
		}
		return nil
	})
}

func relPath(p string) (string, bool) {
	r, err := filepath.Rel(root, p)
	if err != nil || strings.HasPrefix(r, "..") {
		return "", false
	}
	return filepath.ToSlash(r), true
}

func charCol(path string, line, col int, cache map[string][]string) int {
	ls, ok := cache[path]
	if !ok {
		b, _ := os.ReadFile(filepath.Join(root, path))
		ls = strings.Split(string(b), "\n")
		cache[path] = ls
	}
	if line < 1 || line > len(ls) || col-1 > len(ls[line-1]) {
		return col - 1
	}
	return len([]rune(ls[line-1][:col-1]))
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ref_go ROOT FILE...")
		os.Exit(2)
	}
	root, _ = filepath.Abs(os.Args[1])
	module = readModule()
	std = importer.ForCompiler(fset, "source", nil)
	load()
	want := map[string]bool{}
	for _, f := range os.Args[2:] {
		want[filepath.ToSlash(f)] = true
	}
	var keys []string
	for k := range dirs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	enc := json.NewEncoder(os.Stdout)
	cache := map[string][]string{}
	for _, rel := range keys {
		d := dirs[rel]
		path := module
		if rel != "." {
			path = module + "/" + filepath.ToSlash(rel)
		}
		for _, group := range [][]*ast.File{append(append([]*ast.File{}, d.files...), d.tests...), d.xtest} {
			var mine []*ast.File
			for _, f := range group {
				if r, ok := relPath(fset.File(f.Pos()).Name()); ok && want[r] {
					mine = append(mine, f)
				}
			}
			if len(mine) == 0 {
				continue
			}
			info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
			conf := types.Config{Importer: imp{}, Error: func(error) {}}
			_, _ = conf.Check(path, fset, group, info)
			for _, f := range mine {
				fpath, _ := relPath(fset.File(f.Pos()).Name())
				ast.Inspect(f, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					var id *ast.Ident
					switch fn := call.Fun.(type) {
					case *ast.Ident:
						id = fn
					case *ast.SelectorExpr:
						id = fn.Sel
					default:
						return true
					}
					pos := fset.Position(id.Pos())
					s := site{Path: fpath, Line: pos.Line, Name: id.Name, Defs: [][]any{}}
					s.Col = charCol(fpath, pos.Line, pos.Column, cache)
					switch o := info.Uses[id].(type) {
					case *types.TypeName:
						return true // a conversion
					case *types.Builtin:
						s.Ref = "external"
					case *types.Func:
						o = o.Origin()
						dp := fset.Position(o.Pos())
						if r, ok := relPath(dp.Filename); ok && o.Pkg() != nil && dp.Filename != "" &&
							(o.Pkg().Path() == module || strings.HasPrefix(o.Pkg().Path(), module+"/") ||
								strings.HasSuffix(o.Pkg().Path(), "_test")) {
							s.Ref = "repo"
							s.Defs = [][]any{{r, dp.Line}}
							if sig, ok := o.Type().(*types.Signature); ok && sig.Recv() != nil &&
								types.IsInterface(sig.Recv().Type()) {
								s.Why = "dynamic: an interface's method"
							}
						} else {
							s.Ref = "external"
						}
					case *types.Var:
						s.Ref, s.Why = "unknown", "a variable or field of function type"
					case nil:
						s.Ref, s.Why = "unknown", "not resolved (a package not on this machine?)"
					default:
						s.Ref, s.Why = "unknown", "other object"
					}
					_ = enc.Encode(s)
					return true
				})
			}
		}
	}
}

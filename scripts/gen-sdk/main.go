// Command gen-sdk generates keyform's Go and Python SDKs from the provider plugin's package
// schema with Pulumi's own code generators (github.com/pulumi/pulumi/pkg/v3/codegen, the code
// `pulumi package gen-sdk` runs through the language hosts), so no language host other than
// Node.js and YAML has to be built.
//
//	go run . -schema schema.json -out <dir> [-languages go,python]
//
// Each language is written to <dir>/<language>/.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const tool = "keyform gen-sdk"

func main() {
	schemaPath := flag.String("schema", "", "path of the package schema (JSON)")
	out := flag.String("out", "", "folder to write the SDKs to (one sub-folder per language)")
	languages := flag.String("languages", "go,python", "comma-separated languages: go, python")
	flag.Parse()
	if err := run(*schemaPath, *out, strings.Split(*languages, ",")); err != nil {
		fmt.Fprintf(os.Stderr, "gen-sdk: %v\n", err)
		os.Exit(1)
	}
}

func run(schemaPath, out string, languages []string) error {
	if schemaPath == "" || out == "" {
		return fmt.Errorf("-schema and -out are required")
	}
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	// The schema refers to no other package, so nothing has to be loaded.
	pkg, diags, err := schema.BindSpec(spec, schema.NewNullLoader(), schema.ValidationOptions{})
	if err != nil {
		return fmt.Errorf("binding the schema: %w", err)
	}
	if diags.HasErrors() {
		return fmt.Errorf("the schema is not valid: %v", diags)
	}
	for _, language := range languages {
		var files map[string][]byte
		switch strings.TrimSpace(language) {
		case "go":
			files, err = gogen.GeneratePackage(tool, pkg, nil)
		case "python":
			files, err = pygen.GeneratePackage(tool, pkg, nil, nil)
		default:
			return fmt.Errorf("unsupported language %q (go, python)", language)
		}
		if err != nil {
			return fmt.Errorf("generating the %s SDK: %w", language, err)
		}
		dir := filepath.Join(out, strings.TrimSpace(language))
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		for name, content := range files {
			path := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				return err
			}
		}
		fmt.Printf("%s: %d files in %s\n", language, len(files), dir)
	}
	return nil
}

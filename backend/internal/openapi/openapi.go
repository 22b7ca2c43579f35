// Package openapi embeds the OpenAPI 3 description of the Reseller API (openapi.yaml, interface
// version 1.1.0) and checks HTTP exchanges against it.
//
// The backend serves JSON at /openapi.json; tests run exchanges through a Validator.
package openapi

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

//go:embed openapi.yaml
var specYAML []byte

var (
	document     = sync.OnceValues(load)
	documentJSON = sync.OnceValues(func() ([]byte, error) {
		doc, err := document()
		if err != nil {
			return nil, err
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("openapi: encode document as JSON: %w", err)
		}
		return append(b, '\n'), nil
	})
)

// load parses the embedded YAML, resolves its references and validates it. Every call returns a
// new, independent document.
func load() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.Context = context.Background()
	doc, err := loader.LoadFromData(specYAML)
	if err != nil {
		return nil, fmt.Errorf("openapi: load document: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("openapi: invalid document: %w", err)
	}
	return doc, nil
}

// Document returns the parsed and validated OpenAPI document. It is loaded once and shared, so
// callers must treat it as read-only.
func Document() (*openapi3.T, error) {
	return document()
}

// JSON returns the document encoded as JSON, as served at /openapi.json. Each call returns a
// copy the caller may keep or modify.
func JSON() ([]byte, error) {
	b, err := documentJSON()
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}

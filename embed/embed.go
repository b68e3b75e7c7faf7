// Package embed holds the files compiled into the binary: the OpenAPI
// contract, the interactive documentation page and its assets. Nothing is
// loaded from a CDN, so the docs work on a LAN with no internet access.
package embed

import "embed"

// OpenAPI is the service contract (OpenAPI 3.1), served at /api/openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte

// Docs is the documentation page (Swagger UI) served under /api/docs.
//
//go:embed docs
var Docs embed.FS

// Package embed holds the files compiled into the binary: the OpenAPI
// contract, the interactive documentation page and its assets, and the
// templates and stylesheet of the web pages. Nothing is loaded from a CDN,
// so everything works on a LAN with no internet access.
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

// Templates are the server-rendered web pages (html/template): setup,
// sign-in, consent, API keys, connected apps and messaging.
//
//go:embed templates
var Templates embed.FS

// Static holds the stylesheet and icon of the web pages, and the setup
// page's one script (zone.js), served under /static.
//
//go:embed static
var Static embed.FS

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

// Docs is the documentation page (Swagger UI) served under /api/docs. Its
// script and stylesheet are kept gzipped (NAME.gz), a quarter of their size,
// and served so to browsers.
//
//go:embed docs
var Docs embed.FS

// Templates are the server-rendered web pages (html/template): setup,
// sign-in, consent, API keys, connected apps and messaging.
//
//go:embed templates
var Templates embed.FS

// Static holds the stylesheet and icon of the web pages, their scripts
// (app.js on every page; zone.js on setup, import.js on Import), served
// under /static, and the installable web app's manifest, served at
// /manifest.webmanifest. The PNG icons (icon-192, icon-512, the maskable
// icon-maskable-512 and Apple's icon-180) are icon.svg drawn at those sizes.
//
//go:embed static
var Static embed.FS

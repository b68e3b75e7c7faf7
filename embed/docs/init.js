// Renders the embedded OpenAPI contract. "Authorize" takes an API key
// (svk_...) or a first-party access token; "Try it out" calls this server.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/api/openapi.yaml",
    dom_id: "#docs",
    deepLinking: true,
    persistAuthorization: false,
    tryItOutEnabled: true,
    validatorUrl: null,
  });
});

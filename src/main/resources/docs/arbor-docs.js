// Swagger UI over this server's own OpenAPI document; "Try it out" calls this server.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#docs",
  deepLinking: true,
  tryItOutEnabled: false
});

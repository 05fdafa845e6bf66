// Validates an OpenAPI document against the OpenAPI 3.1 schema and resolves every $ref: node validate-openapi.cjs FILE
const SwaggerParser = require("@apidevtools/swagger-parser");

SwaggerParser.validate(process.argv[2])
  .then(() => console.log("valid"))
  .catch((error) => {
    console.error(error.message);
    process.exit(1);
  });

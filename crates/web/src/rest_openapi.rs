//! The OpenAPI 3.1 document of the REST mirror.

use serde_json::{Value, json};

pub(crate) fn document() -> Value {
    let envelope = json!({ "$ref": "#/components/schemas/Envelope" });
    let answer = |what: &str| json!({ "description": what, "content": { "application/json": { "schema": envelope } } });
    let errors = json!({
        "401": answer("missing or invalid credential"),
        "403": answer("Host/Origin not allowed, or the call was denied by policy"),
        "404": answer("no such tool, or not available to this credential"),
        "503": answer("marquee is starting"),
    });
    let with_errors = |ok: Value| {
        let mut r = errors.clone();
        r["200"] = ok;
        r
    };
    // A tool that ran and failed: the status follows the error's kind (data.data.kind).
    let mut call_responses = with_errors(answer(
        "the tool's answer; data holds {summary, data, warnings, next_action, observed_at}",
    ));
    for (status, what) in [
        (
            "400",
            "bad input: the arguments, an instance_id or a media source are wrong",
        ),
        (
            "404",
            "no such tool, or the thing the tool was asked about does not exist",
        ),
        (
            "403",
            "refused by the household's rules: a capability, an instance, a switch or content limits",
        ),
        ("409", "conflict: the state disagrees with the call"),
        ("413", "the request body is over the size limit"),
        (
            "429",
            "a request quota or a grant allowance is spent (data says when it refills), or too many calls this minute (Retry-After says when to call again)",
        ),
        ("500", "marquee failed; the server log has the details"),
        ("502", "a backend failed or could not be reached"),
        ("503", "marquee's own database could not be read; try again"),
    ] {
        call_responses[status] = answer(what);
    }
    let name =
        json!([{ "name": "name", "in": "path", "required": true, "schema": { "type": "string" } }]);
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Marquee REST mirror",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The same tools as the MCP endpoint, with the same credentials, grants and switches."
        },
        "servers": [{ "url": "/api/v1" }],
        "security": [{ "bearer": [] }, { "apiKeyHeader": [] }, { "apiKeyQuery": [] }],
        "paths": {
            "/tools": { "get": { "operationId": "listTools", "summary": "Tools available to this credential", "responses": with_errors(answer("the tools")) } },
            "/tools/{name}": { "get": { "operationId": "getTool", "summary": "One tool's definition", "parameters": name, "responses": with_errors(answer("the tool")) } },
            "/tools/{name}/schema": { "get": { "operationId": "getToolSchema", "summary": "One tool's input schema", "parameters": name, "responses": with_errors(answer("the schema")) } },
            "/tools/call": { "post": {
                "operationId": "callTool",
                "summary": "Run a tool",
                "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CallRequest" } } } },
                "responses": call_responses,
            } }
        },
        "components": {
            "securitySchemes": {
                "bearer": { "type": "http", "scheme": "bearer" },
                "apiKeyHeader": { "type": "apiKey", "in": "header", "name": "X-Api-Key" },
                "apiKeyQuery": { "type": "apiKey", "in": "query", "name": "apikey" }
            },
            "schemas": {
                "Envelope": {
                    "type": "object",
                    "required": ["success", "message", "data"],
                    "properties": { "success": { "type": "boolean" }, "message": { "type": "string" }, "data": {} }
                },
                "CallRequest": {
                    "type": "object",
                    "required": ["tool_name"],
                    "additionalProperties": false,
                    "properties": { "tool_name": { "type": "string" }, "arguments": { "type": "object" } }
                }
            }
        }
    })
}

// A second, independent MCP client for Guide's legacy-era end-to-end test: the TypeScript SDK.
//
// Spawns `<python> -m guide serve --docroot <dir>` over stdio, declares form elicitation,
// answers every `elicitation/create` from a JSON plan keyed by the first property name of the
// requested schema, reads one resource and prints JSON to stdout:
//   {"text": <first text content>, "asked": [{"message", "schema", "wireSchema"}, ...]}
// `schema` is the requested schema as the SDK hands it to the handler (after its own parsing);
// `wireSchema` is the same request's schema exactly as it arrived in the JSON-RPC message.
//
// Usage: node client.mjs --python PY --docroot DIR [--uri guide://_review] [--plan '{"mode":"branch"}'] [--cwd DIR]
// PY may instead come from the GUIDE_PYTHON environment variable.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { answerFromPlan, readOptions, serverCommand, watchMessages } from "../client_common.mjs";

const options = readOptions();
const { plan } = options;
const transport = new StdioClientTransport(serverCommand(options));
const client = new Client({ name: "guide-e2e-typescript", version: "0.0.0" }, { capabilities: { elicitation: { form: {} } } });

const asked = [];
const wire = new Map(); // JSON-RPC id -> params.requestedSchema as received
client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
  const schema = request.params.requestedSchema;
  asked.push({ message: request.params.message, schema, wireSchema: wire.get(extra.requestId) ?? null });
  return answerFromPlan(plan, schema);
});

// Keep each elicitation request's schema before the SDK parses it, and the negotiated version.
let protocolVersion = null;
watchMessages(transport, (message) => {
  if (message?.method === "elicitation/create") {
    wire.set(message.id, structuredClone(message.params?.requestedSchema ?? null));
  } else if (typeof message?.result?.protocolVersion === "string" && protocolVersion === null) {
    protocolVersion = message.result.protocolVersion;
  }
});

let status = 0;
try {
  await client.connect(transport);
  const result = await client.readResource({ uri: options.uri });
  const text = result.contents.find((content) => typeof content.text === "string")?.text ?? null;
  process.stdout.write(JSON.stringify({ text, asked, protocolVersion, server: client.getServerVersion() ?? null }) + "\n");
} catch (error) {
  console.error(`client.mjs: ${error?.stack ?? error}`);
  process.stdout.write(JSON.stringify({ error: { code: error?.code ?? null, message: String(error?.message ?? error) }, asked }) + "\n");
  status = 1;
} finally {
  await client.close().catch(() => {});
}
process.exit(status);

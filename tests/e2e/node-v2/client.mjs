// An independent MCP client for Guide's 2026-07-28 end-to-end test: the TypeScript SDK v2
// (@modelcontextprotocol/client), with its protocol version pinned to 2026-07-28.
//
// Spawns `<python> -m guide serve --docroot <dir>` over stdio (pinned negotiation first sends
// `server/discover` to a short-lived sibling process the SDK spawns with the same command),
// declares form elicitation and reads one resource. On this era Guide asks through
// `input_required` results; the SDK fulfils each embedded request through the `elicitation/create`
// handler below and retries the read itself. The handler answers from a JSON plan keyed by the
// first property name of the requested schema (a field missing from the plan is declined).
// Prints one JSON line to stdout:
//   {"protocolVersion", "server", "text", "asked": [{"message", "schema"}],
//    "rounds": [{"<form id>": <requestedSchema as on the wire>, ...}, ...], "elicitationRequests": <count>}
// with "error": {"code", "message"} instead of "text" when the read fails.
//
// Usage: node client.mjs --python PY --docroot DIR [--uri guide://_review] [--plan '{"mode":"branch"}'] [--cwd DIR]

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { answerFromPlan, readOptions, serverCommand, watchMessages } from "../client_common.mjs";

const PROTOCOL = "2026-07-28";

const options = readOptions();
const { plan } = options;
const transport = new StdioClientTransport(serverCommand(options));
const client = new Client(
  { name: "guide-e2e-typescript-v2", version: "0.0.0" },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: PROTOCOL } } },
);

const asked = [];
client.setRequestHandler("elicitation/create", async (request) => {
  const schema = request.params.requestedSchema;
  asked.push({ message: request.params.message, schema });
  return answerFromPlan(plan, schema);
});

// Each `input_required` result's requested schemas as they arrived, and any server-to-client
// `elicitation/create` request (the handshake era's way, not expected here).
const rounds = [];
let elicitationRequests = 0;
watchMessages(transport, (message) => {
  if (message?.method === "elicitation/create") {
    elicitationRequests += 1;
  }
  const requests = message?.result?.inputRequests;
  if (requests && typeof requests === "object") {
    rounds.push(Object.fromEntries(Object.entries(requests).map(([id, request]) => [id, structuredClone(request?.params?.requestedSchema ?? null)])));
  }
});

let status = 0;
const report = () => ({ asked, rounds, elicitationRequests, protocolVersion: client.getNegotiatedProtocolVersion() ?? null, server: client.getServerVersion() ?? null });
try {
  await client.connect(transport);
  try {
    const result = await client.readResource({ uri: options.uri });
    const text = result.contents.find((content) => typeof content.text === "string")?.text ?? null;
    process.stdout.write(JSON.stringify({ ...report(), text }) + "\n");
  } catch (error) {
    process.stdout.write(JSON.stringify({ ...report(), error: { code: error?.code ?? null, message: String(error?.message ?? error) } }) + "\n");
  }
} catch (error) {
  console.error(`client.mjs: ${error?.stack ?? error}`);
  status = 1;
} finally {
  await client.close().catch(() => {});
}
process.exit(status);

// What both TypeScript end-to-end clients (node/ and node-v2/) share: their command line, the
// Guide server command they spawn over stdio, and the answer a JSON plan gives a form.

import { parseArgs } from "node:util";

/** The client's options from its command line; exits with usage when a required one is missing. */
export function readOptions() {
  const { values: options } = parseArgs({
    options: {
      python: { type: "string", default: process.env.GUIDE_PYTHON },
      docroot: { type: "string" },
      uri: { type: "string", default: "guide://_review" },
      plan: { type: "string", default: "{}" },
      cwd: { type: "string", default: process.cwd() },
    },
  });
  if (!options.python || !options.docroot) {
    console.error("usage: node client.mjs --python PY --docroot DIR [--uri URI] [--plan JSON] [--cwd DIR]");
    process.exit(2);
  }
  return { ...options, plan: JSON.parse(options.plan) };
}

/** The stdio transport settings that start `python -m guide serve` over the docroot. */
export function serverCommand(options) {
  return {
    command: options.python,
    args: ["-m", "guide", "serve", "--docroot", options.docroot],
    env: { ...process.env },
    cwd: options.cwd,
    stderr: "inherit",
  };
}

/** The elicitation result for a form: accept the plan's value for its first field, or decline. */
export function answerFromPlan(plan, schema) {
  const field = Object.keys(schema.properties ?? {})[0];
  if (field === undefined || !(field in plan)) {
    return { action: "decline" };
  }
  return { action: "accept", content: { [field]: plan[field] } };
}

/** Call `observe` with each raw JSON-RPC message the transport receives, before the SDK parses it. */
export function watchMessages(transport, observe) {
  // The SDK installs its own `onmessage` just before `start`, so wrap it there.
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const deliver = transport.onmessage;
    transport.onmessage = (message, ...rest) => {
      observe(message);
      return deliver(message, ...rest);
    };
    return start();
  };
}

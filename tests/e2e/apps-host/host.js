// A minimal MCP Apps host on the official AppBridge (@modelcontextprotocol/ext-apps), for Guide's browser test.
// It renders one App page in a sandboxed iframe, the way Apps hosts do, and hands the page's requests to the
// test: tool calls go to `window.hostCallTool` (the test's MCP client, connected to a real Guide server) and
// `ui/message` texts are kept in `window.hostMessages`, as a conversation would receive them.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

window.hostMessages = [];

function policy(csp) {
  // The host's Content-Security-Policy for the frame, from the resource's declared `_meta.ui.csp` (all empty for Guide).
  const list = (domains) => (domains && domains.length ? " " + domains.join(" ") : "");
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline'" + list(csp.resourceDomains),
    "style-src 'unsafe-inline'" + list(csp.resourceDomains),
    "img-src data:" + list(csp.resourceDomains),
    "connect-src 'none'" + list(csp.connectDomains),
    "frame-src 'none'" + list(csp.frameDomains),
    "base-uri 'none'" + list(csp.baseUriDomains),
  ].join("; ");
}

window.openApp = async function openApp({ html, csp, toolInput, toolResult, toolName }) {
  const frame = document.createElement("iframe");
  frame.id = "app";
  frame.setAttribute("sandbox", "allow-scripts allow-forms");
  document.getElementById("frame").replaceChildren(frame);

  // The tool that opened the page, as this host lists it (a gateway may have renamed it), in the context the page is given.
  const context = toolName ? { hostContext: { toolInfo: { tool: { name: toolName, inputSchema: { type: "object" } } } } } : undefined;
  const bridge = new AppBridge(null, { name: "guide-test-host", version: "1.0.0" }, { serverTools: {}, message: { text: {} } }, context);
  bridge.oncalltool = async (params) => window.hostCallTool(params.name, params.arguments || {});
  bridge.onmessage = async (params) => {
    window.hostMessages.push(params);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = height + 24 + "px";
  };
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  // The bridge listens before the page loads: the page says `ui/initialize` as soon as its script runs.
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy(csp || {})}">`;
  frame.srcdoc = html.replace(/<head>/i, "<head>" + meta);
  await initialized;
  await bridge.sendToolInput({ arguments: toolInput });
  await bridge.sendToolResult(toolResult);
  window.appBridge = bridge;
};

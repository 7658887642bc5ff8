// Usage: a server written against the generated Server interface, served
// on this process's stdio (transport.test.ts spawns it with spawnServer).
import { serveStdio, type Server } from "../../../out/ts/src/index.js";

const server: Server = {
  initialize() {
    return { serverInfo: { name: "stdio-server", version: "0.0.0" } };
  },
  sessionPrompt() {
    return { messageId: "m-1" };
  },
  shutdown() {
    return {};
  },
};

const connection = serveStdio(server);
void connection.transport.closed.then(() => process.exit(0));

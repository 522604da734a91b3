import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/**
 * Closing keep-alive connections on shutdown without resetting a client's request.
 *
 * Node's `server.close()` destroys every idle keep-alive connection at once, and a client that sends
 * its next request on such a connection at that moment gets a reset: about one request per
 * keep-alive connection in a SIGTERM test (docs/operations.md#shutdown-without-resets). HTTP/1.1 has
 * one race-free way to retire a connection: a response that says `Connection: close` (app.ts adds it
 * to every response once shutting down). So the drain stops accepting connections, lets every
 * connection that is still being used serve its next request with that header (the connection then
 * closes after the response), and closes only connections that have carried no request for `quietMs`:
 * a client that has been silent that long is not about to send (the same bet as any keep-alive timeout).
 */
interface ConnectionDrain {
  /** Stops accepting connections and resolves once every connection is closed, or at `deadlineMs`. */
  drain(options: { quietMs: number; deadlineMs: number }): Promise<void>;
}

const POLL_MS = 25;

export function trackConnections(server: Server): ConnectionDrain {
  /** Per open connection: requests in flight, and when it last finished one (or was opened). */
  const connections = new Map<Socket, { inFlight: number; idleSince: number }>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { inFlight: 0, idleSince: Date.now() });
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (request, response) => {
    const state = connections.get(request.socket);
    if (state === undefined) return;
    state.inFlight += 1;
    response.once('close', () => {
      state.inFlight -= 1;
      state.idleSince = Date.now();
    });
  });

  return {
    async drain({ quietMs, deadlineMs }) {
      // net.Server's close stops listening; http.Server's would also destroy the idle connections now.
      if (server.listening) NetServer.prototype.close.call(server);
      const until = Date.now() + deadlineMs;
      while (connections.size > 0 && Date.now() < until) {
        const now = Date.now();
        for (const [socket, state] of connections) {
          if (state.inFlight === 0 && now - state.idleSince >= quietMs) socket.destroy();
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
  };
}

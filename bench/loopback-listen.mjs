/**
 * Preload (`node --import`) for peers that listen on every interface with no option to
 * choose (supergateway's `app.listen(port)`): a TCP listen given a port but no host binds
 * 127.0.0.1 instead, so the benchmark opens nothing beyond loopback.
 */
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    if (typeof args[1] !== "string") args.splice(1, 0, "127.0.0.1");
  } else if (first && typeof first === "object" && first.port !== undefined && first.path === undefined && !first.host) {
    args[0] = { ...first, host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};

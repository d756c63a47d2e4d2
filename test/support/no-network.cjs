// Preloaded (`node --require`, through NODE_OPTIONS) into a process that must
// reach nothing beyond this machine, such as the docs' build: every connection
// or name look-up for another host is refused, and said on stderr, so that the
// test that ran the process sees it even where the process swallowed the error.
const dns = require("node:dns");
const net = require("node:net");

const LOCAL = /^(?:localhost|127\.\d+\.\d+\.\d+|::1|\[::1\]|0\.0\.0\.0)$/i;
const MARK = "no-network: refused a connection to";

function refuse(host) {
  process.stderr.write(`${MARK} ${host}\n`);
  return new Error(`${MARK} ${host} (this process may reach only this machine)`);
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === "object" && first !== null ? first : { port: first, host: typeof args[1] === "string" ? args[1] : undefined };
  const host = options.path === undefined ? String(options.host ?? "localhost") : null;
  if (host !== null && !LOCAL.test(host)) {
    const error = refuse(host);
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return connect.apply(this, args);
};

const lookup = dns.lookup;
dns.lookup = function (host, ...rest) {
  if (!LOCAL.test(String(host))) {
    const callback = rest[rest.length - 1];
    const error = refuse(host);
    if (typeof callback === "function") process.nextTick(() => callback(Object.assign(error, { code: "ENOTFOUND" })));
    return {};
  }
  return lookup.call(this, host, ...rest);
};
const promisesLookup = dns.promises.lookup;
dns.promises.lookup = async (host, ...rest) => {
  if (!LOCAL.test(String(host))) throw Object.assign(refuse(host), { code: "ENOTFOUND" });
  return promisesLookup.call(dns.promises, host, ...rest);
};

module.exports = { MARK };

// A minimal Node service: the platform loads this module and serves `app` (a request listener).
const app = (req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ hello: 'from node', path: req.url, agent: process.env.SVC_AGENT_NAME }));
};

module.exports = { app };

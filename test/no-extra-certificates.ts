// Run around the whole test run: the processes it starts (the test workers, and every
// runner, stand-in client and script they start in turn) start without NODE_EXTRA_CA_CERTS.
//
// Why: where that variable is set, every Node process reads and parses the certificates it
// names as it starts, whether or not it ever opens a TLS connection. Measured on this
// project's 2-core test machine, which sets it to the system's whole bundle (about 140
// certificates, 220 KB): `node -e 0` takes 0.03-0.04 s of CPU without it and 0.08-0.13 s
// with it. A test run starts some fifty Node processes, and none of them needs a
// certificate: the mock, the stand-in servers and the stand-in clients are all on loopback,
// over plain HTTP. (The one TLS failure the tests look at, in commands.test.ts, is an
// https:// address for a plain HTTP server: no certificate is ever read.)
//
// What it is not: a change to anything outside the test run. The variable is put back when
// the run ends, and `node steps/run.mjs --live` run by hand keeps the user's certificates.

export default function startWithoutExtraCertificates(): () => void {
  const before = process.env.NODE_EXTRA_CA_CERTS;
  delete process.env.NODE_EXTRA_CA_CERTS;
  return () => {
    if (before !== undefined) process.env.NODE_EXTRA_CA_CERTS = before;
  };
}

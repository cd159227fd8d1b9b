// The test run's processes start without NODE_EXTRA_CA_CERTS (test/no-extra-certificates.ts):
// taken out for the run, whatever it held, and put back as it was when the run ends. And
// what the run's own processes really get: a process a test starts finds no such variable.

import { it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import startWithoutExtraCertificates from './no-extra-certificates.ts';

it('takes the variable out for the run and puts it back as it was, set or not', () => {
  const during = process.env.NODE_EXTRA_CA_CERTS;
  try {
    process.env.NODE_EXTRA_CA_CERTS = '/etc/some-bundle.pem';
    const putBack = startWithoutExtraCertificates();
    expect('NODE_EXTRA_CA_CERTS' in process.env).toBe(false);
    putBack();
    expect(process.env.NODE_EXTRA_CA_CERTS).toBe('/etc/some-bundle.pem');

    delete process.env.NODE_EXTRA_CA_CERTS;
    startWithoutExtraCertificates()();
    expect('NODE_EXTRA_CA_CERTS' in process.env).toBe(false);
  } finally {
    if (during === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = during;
  }
});

it('a process a test starts has no NODE_EXTRA_CA_CERTS', () => {
  const seen = execFileSync('sh', ['-c', 'echo "${NODE_EXTRA_CA_CERTS-unset}"'], { encoding: 'utf8' }).trim();
  expect(seen).toBe('unset');
});

// Headers checked once for the kept reads (src/http/checkedHeaders.ts): the bytes Node writes are
// those of writeHead(status, object), and a header writeHead would refuse is refused when checked.
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { checkedHeaders, headersPreChecked, writeChecked } from '../../src/http/checkedHeaders.js';

function response(): ServerResponse & { _header?: unknown } {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  const res = new ServerResponse(req);
  res.sendDate = false;
  return res;
}

describe('checked headers', () => {
  it('skip the second check on this Node (the kept reads rely on it for their CPU)', () => {
    expect(headersPreChecked).toBe(true);
  });

  it.each([200, 304])('write the header block writeHead writes for status %i', (status) => {
    const headers = {
      'x-frame-options': 'SAMEORIGIN',
      ETag: '"abc-br"',
      vary: 'accept-encoding, authorization',
      'content-type': 'application/json; charset=utf-8',
      'content-length': '1234',
    };
    const plain = response();
    plain.writeHead(status, headers);
    const checked = response();
    writeChecked(checked, status, checkedHeaders(headers));
    expect(typeof checked._header).toBe('string');
    expect(checked._header).toBe(plain._header);
    // The map is shared by every response: a second one writes the same.
    const again = response();
    const once = checkedHeaders(headers);
    writeChecked(again, status, once);
    writeChecked(response(), status, once);
    expect(again._header).toBe(plain._header);
  });

  it('write their own names only, whatever Object.prototype holds', () => {
    const headers = { etag: '"abc"', 'content-length': '3' };
    const plain = response();
    plain.writeHead(200, headers);
    const checked = checkedHeaders(headers);
    const proto = Object.prototype as Record<string, unknown>;
    proto['x-polluted'] = ['x-polluted', 'yes'];
    try {
      const res = response();
      writeChecked(res, 200, checked);
      expect(res._header).toBe(plain._header);
    } finally {
      delete proto['x-polluted'];
    }
  });

  it('refuse a name or value writeHead would refuse', () => {
    expect(() => checkedHeaders({ 'bad name': 'x' })).toThrow();
    expect(() => checkedHeaders({ etag: 'a\r\nb' })).toThrow();
  });
});

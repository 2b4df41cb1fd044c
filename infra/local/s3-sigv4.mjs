// AWS Signature V4 checked in front of s3rver, which parses V4 signatures but never checks them
// (and lets unsigned requests through): a presigned upload URL is only a limit when the store
// refuses a request whose signature, length or time does not match (docs/decisions/uploads.md).
// The signature is recomputed with @smithy/signature-v4, the AWS SDK's own signer.
import { HttpRequest } from '@smithy/core/protocols';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';

const Sha256 = Hash.bind(null, 'sha256');

/** S3 refuses a presigned URL that claims to live longer than a week (seconds). */
const maxExpiresSeconds = 7 * 24 * 3600;
/** S3's allowed clock difference for header-signed requests (ms). */
const maxSkewMs = 15 * 60 * 1000;

/**
 * Checks one incoming request. `keys` maps access key ids to secrets. Answers null when the
 * signature holds, else `{ status, code, message }` for an S3 error reply.
 * Not checked (as s3rver before): the payload hash of a header-signed body against its bytes.
 */
export async function checkSignature(req, keys, now = Date.now()) {
  const url = new URL(req.url ?? '/', 'http://local');
  const query = Object.fromEntries(url.searchParams);
  const presigned = query['X-Amz-Algorithm'] !== undefined;
  const authorization = req.headers.authorization;
  if (!presigned && !authorization) return deny('AccessDenied', 'Anonymous access is refused: sign the request');
  if (presigned && authorization) return deny('InvalidArgument', 'Only one auth mechanism allowed');

  const parts = presigned ? fromQuery(query) : fromHeader(authorization);
  if (!parts) return deny('AuthorizationHeaderMalformed', 'The signature is malformed or not AWS4-HMAC-SHA256');
  const [accessKeyId, shortDate, region, service] = parts.credential.split('/');
  const secret = keys[accessKeyId];
  if (secret === undefined) return deny('InvalidAccessKeyId', 'The access key id is not known here');

  const longDate = presigned ? query['X-Amz-Date'] : req.headers['x-amz-date'];
  const signedAt = parseLongDate(longDate);
  if (!signedAt || !longDate.startsWith(shortDate)) return deny('AccessDenied', 'The signing date is missing or malformed');
  if (presigned) {
    const expires = Number(query['X-Amz-Expires']);
    if (!Number.isInteger(expires) || expires < 1 || expires > maxExpiresSeconds)
      return deny('AuthorizationQueryParametersError', 'X-Amz-Expires must be between 1 second and 7 days');
    if (now > signedAt + expires * 1000) return deny('AccessDenied', 'Request has expired');
  } else if (Math.abs(now - signedAt) > maxSkewMs) {
    return deny('RequestTimeTooSkewed', 'The difference between the request time and the current time is too large');
  }

  // Only the headers the client says it signed take part (lower-case names, as signed).
  const signedNames = parts.signedHeaders.split(';');
  const headers = {};
  for (const name of signedNames) {
    const value = req.headers[name];
    if (value === undefined) return deny('AccessDenied', `The signed header ${name} is missing`);
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const { 'X-Amz-Signature': _signature, ...unsigned } = query;
  const request = new HttpRequest({
    method: req.method,
    protocol: 'http:',
    hostname: 'local',
    path: url.pathname, // as sent: S3 signs the path without encoding it again
    query: presigned ? unsigned : query,
    headers,
    // A presigned request's payload is UNSIGNED-PAYLOAD, which the signer picks for a stream.
    body: presigned ? req : undefined,
  });
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey: secret },
    region,
    service,
    sha256: Sha256,
    uriEscapePath: false,
  });
  const names = new Set(signedNames);
  const expected = presigned
    ? (
        await signer.presign(request, {
          signingDate: new Date(signedAt),
          expiresIn: Number(query['X-Amz-Expires']),
          signableHeaders: names,
          unhoistableHeaders: names,
        })
      ).query['X-Amz-Signature']
    : /Signature=([0-9a-f]+)/.exec(
        (await signer.sign(request, { signingDate: new Date(signedAt), signableHeaders: names })).headers.authorization,
      )?.[1];
  if (expected !== parts.signature)
    return deny('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided');
  return null;
}

function fromQuery(query) {
  if (query['X-Amz-Algorithm'] !== 'AWS4-HMAC-SHA256') return null;
  const credential = query['X-Amz-Credential'];
  const signedHeaders = query['X-Amz-SignedHeaders'];
  const signature = query['X-Amz-Signature'];
  return credential && signedHeaders && signature ? { credential, signedHeaders, signature } : null;
}

function fromHeader(authorization) {
  const match = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(authorization);
  return match ? { credential: match[1], signedHeaders: match[2], signature: match[3] } : null;
}

/** `20261127T195500Z` → ms since the epoch, or null. */
function parseLongDate(value) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : null;
}

function deny(code, message) {
  return { status: code === 'InvalidArgument' || code === 'AuthorizationQueryParametersError' ? 400 : 403, code, message };
}

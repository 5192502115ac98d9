// A real OAuth 2.1 authorization server for the auth tests: the certified `oidc-provider`
// package (npm), configured from the JSON in $AS_CONFIG, listening on the socket handed down ($fd).
// Client-credentials grant, authorization code + PKCE (public clients; the login and consent
// interactions approve at once, as user `alice`, every scope and resource asked for), RFC 8707
// resource indicators, DPoP-bound tokens, private_key_jwt clients (every indicator gets JWT access
// tokens with aud = the indicator, RS256, except those listed as `opaque`), RFC 7662
// introspection, RFC 7009 revocation. Prints "ready <port>" once it listens. The module folder is $AS_MODULES.
import { createRequire } from 'node:module';

const require = createRequire(`${process.env.AS_MODULES}/`);
const { default: Provider } = await import(require.resolve('oidc-provider'));
const cfg = JSON.parse(process.env.AS_CONFIG);
const opaque = new Set(cfg.opaque ?? []);

const provider = new Provider(cfg.issuer, {
  clients: cfg.clients,
  scopes: cfg.scopes,
  jwks: { keys: cfg.keys },
  features: {
    clientCredentials: { enabled: true },
    devInteractions: { enabled: false },
    // DPoP (RFC 9449) is on in oidc-provider 9; with `dpopNonceSecret` every proof must carry
    // the nonce it hands out (400 use_dpop_nonce + DPoP-Nonce first).
    dPoP: {
      enabled: true,
      nonceSecret: cfg.dpopNonceSecret ? Buffer.from(cfg.dpopNonceSecret, 'hex') : undefined,
      requireNonce: () => Boolean(cfg.dpopNonceSecret),
    },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => ({
        scope: cfg.scopes.join(' '),
        audience: resource,
        accessTokenTTL: cfg.ttl ?? 300,
        accessTokenFormat: opaque.has(resource) ? 'opaque' : 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});
// The interaction pages a browser would show: here they finish at once. Login as `alice`;
// consent grants exactly what the authorization request asked for (scopes, resource scopes).
provider.use(async (ctx, next) => {
  const match = /^\/interaction\/([^/]+)$/.exec(ctx.path);
  if (!match || ctx.method !== 'GET') return next();
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  let result;
  if (details.prompt.name === 'login') {
    result = { login: { accountId: 'alice' } };
  } else {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    const missing = details.prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    result = { consent: { grantId: await grant.save() } };
  }
  const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: true });
  ctx.redirect(to);
});
// on the listening socket the test holds since it picked the port (fd): never free meanwhile
const server = provider.listen({ fd: cfg.fd }, () => {
  console.log(`ready ${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

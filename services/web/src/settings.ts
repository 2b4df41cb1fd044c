// What the api writes into the page (services/api/web-app): which sign-in providers are set up,
// and whether mail goes to a folder instead of out (no SMTP_URL).
export interface Settings {
  providers: ('github' | 'google')[];
  outbox: boolean;
  /** The origin where a passkey can work here (the WebAuthn relying party's), or null for none. */
  passkeyOrigin: string | null;
}

export const settings: Settings = (() => {
  const raw = document.querySelector<HTMLMetaElement>('meta[name="pp-config"]')?.content;
  try {
    return { providers: [], outbox: false, passkeyOrigin: null, ...(raw ? JSON.parse(raw) : {}) };
  } catch {
    return { providers: [], outbox: false, passkeyOrigin: null };
  }
})();

/**
 * Whether a passkey can work on this page: a secure context with WebAuthn, at the origin the
 * platform checks answers against (another host name, or an IP address, can never have one).
 */
export const passkeysHere = () =>
  settings.passkeyOrigin === window.location.origin && window.isSecureContext && typeof window.PublicKeyCredential === 'function';

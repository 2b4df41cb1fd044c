// Personalised copies (issue 34, part 3; docs/decisions/personalised-copies.md). A build whose
// manifest says `personalise: true` is told who is viewing: its container copy gets the viewer's
// name and company as request headers, on every request and WebSocket upgrade. Kept apart from the
// proxy that sends them, so whichever data plane carries copy traffic (the room's Node proxy
// today) asks this one module what to add and what to strip.

/** The request headers a personalised copy gets (lower case, as Node keeps them). */
export const VIEWER_NAME_HEADER = 'x-demo-viewer-name';
export const VIEWER_COMPANY_HEADER = 'x-demo-viewer-company';

/**
 * Stripped from every viewer's request to every copy, personalised or not: only the room says who
 * a viewer is, so a viewer who sends these themselves cannot pass for someone else.
 */
export const PERSONAL_HEADERS = [VIEWER_NAME_HEADER, VIEWER_COMPANY_HEADER] as const;

/** Who the viewer is, as the room knows them: what they typed in who-are-you, else what their link says. */
export interface KnownViewer {
  viewerName: string | null;
  viewerCompany: string | null;
}

/** Whether a build asked to be told who views it (manifest `personalise`). */
export const personalises = (manifest: { personalise?: boolean } | null | undefined): boolean => manifest?.personalise === true;

/**
 * The headers to add to the viewer's requests to their copy: none unless the build opted in,
 * and none for what the room does not know. Values are percent-encoded UTF-8
 * (encodeURIComponent), so any name travels in a header (which is Latin-1 at best) and a copy
 * reads it back with decodeURIComponent.
 */
export function personalHeaders(
  viewer: KnownViewer | null,
  manifest: { personalise?: boolean } | null | undefined,
): Record<string, string> {
  if (!viewer || !personalises(manifest)) return {};
  const headers: Record<string, string> = {};
  if (viewer.viewerName) headers[VIEWER_NAME_HEADER] = encodeURIComponent(viewer.viewerName);
  if (viewer.viewerCompany) headers[VIEWER_COMPANY_HEADER] = encodeURIComponent(viewer.viewerCompany);
  return headers;
}

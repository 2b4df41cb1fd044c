// A WebGL canvas's picture is gone once the browser has shown it (preserveDrawingBuffer false,
// the default): read back later it is blank, black where the context has no alpha, and a page
// drawn on such a canvas (speedscope's white page) came back black. The helper runs before
// the app's scripts, so their WebGL contexts keep their drawing until the next frame replaces it.
// Part of frame-helper.js.

/** The options a context of `kind` is made with: a WebGL one keeps its drawing. */
export function contextOptions(kind: unknown, options: unknown): unknown {
  if (!/^(webgl2?|experimental-webgl)$/.test(String(kind))) return options;
  return { ...(options && typeof options === 'object' ? options : {}), preserveDrawingBuffer: true };
}

type GetContext = (this: HTMLCanvasElement, kind: string, options?: unknown, ...rest: unknown[]) => RenderingContext | null;

export function keepWebglDrawing() {
  const canvasProto = HTMLCanvasElement.prototype as unknown as { getContext: GetContext };
  const getContext = canvasProto.getContext;
  canvasProto.getContext = function (kind, options, ...rest) {
    return getContext.call(this, kind, contextOptions(kind, options), ...rest);
  };
}

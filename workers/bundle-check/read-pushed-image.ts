import {
  contentDigest,
  MANIFEST_TYPES,
  readBlob,
  readManifest,
  registryBlobSize,
  registryHasManifest,
  RegistryReadError,
  UNCOMPRESSED_LAYER_TYPES,
  type Registry,
} from '../../services/core/infra/registry/registry-pull.js';
import { BundleRefusal, describeConfig, type BundleImage, type BundleLimits } from './read-bundle.js';

// The bundle check of an image pushed to the registry (issue 32): the same rules as a tarball's,
// read from its manifest and config. One image: a manifest of one config and its layers, never a
// list or an index; no tag is read (the build names it by digest); the layers' bytes together
// within the unpacked limit and their count within the entry limit; the config within the held
// limit. The registry checked every blob against its digest when it was pushed, but not a
// layer's size against the manifest's: each is checked against the stored blob's before the
// sizes are added up (issue 45, L1), so a manifest cannot declare a large layer small. A size the
// workspace's earlier checks read (checked_blob_sizes) is not asked again: a digest names its bytes.

const HEX_DIGEST = /^sha256:[0-9a-f]{64}$/;
/** Layers whose stored size is asked of the registry at once. */
const AT_ONCE = 8;

/** The stored sizes earlier checks read, among these digests (none: every layer is asked). */
export type CheckedSizes = (digests: string[]) => Promise<Map<string, number>>;

export async function readPushedImage(
  registry: Registry,
  repository: string,
  digest: string,
  limits: BundleLimits,
  checkedSizes: CheckedSizes = async () => new Map(),
  /** The manifest's text as the deploy sent it with createBuild: taken when its sha256 is `digest`. */
  sent?: string,
): Promise<BundleImage & { manifestBytes: number; sizesRead: Map<string, number> }> {
  try {
    // A digest names its bytes: the manifest the deploy sent is the one the registry holds when
    // their digests agree, and only whether it holds it is asked (beside the reads below), not
    // the manifest itself before them (a registry round trip of createBuild's, 0.01-0.04 s).
    const given = sentManifest(sent, digest, limits.maxHeldBytes);
    const held = given ? registryHasManifest(registry, repository, digest) : Promise.resolve();
    held.catch(() => {});
    const bytes = given ?? (await readManifest(registry, repository, digest, limits.maxHeldBytes));
    let manifest: {
      schemaVersion?: unknown;
      mediaType?: unknown;
      config?: { digest?: unknown; size?: unknown };
      layers?: { digest?: unknown; size?: unknown; mediaType?: unknown }[];
    };
    try {
      manifest = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new BundleRefusal('the pushed image manifest is not JSON');
    }
    if (manifest.schemaVersion !== 2 || !MANIFEST_TYPES.includes(manifest.mediaType as (typeof MANIFEST_TYPES)[number]))
      throw new BundleRefusal('the pushed image must be one image manifest (schema 2 or OCI), not a list or an index');
    const layers = Array.isArray(manifest.layers) ? manifest.layers : [];
    const config = manifest.config;
    if (!config || typeof config.digest !== 'string' || !HEX_DIGEST.test(config.digest) || !layers.length)
      throw new BundleRefusal('the pushed image manifest must name a config and its layers');
    if (layers.length + 2 > limits.maxEntries) throw new BundleRefusal(`the pushed image has more than ${limits.maxEntries - 2} layers`);
    let total = 0;
    for (const layer of layers) {
      if (typeof layer.digest !== 'string' || !HEX_DIGEST.test(layer.digest) || typeof layer.size !== 'number' || layer.size < 0)
        throw new BundleRefusal('a layer of the pushed image has no digest or size');
      // The engine stores the layers unpacked: a compressed one could unpack past the limit unseen.
      if (!UNCOMPRESSED_LAYER_TYPES.has(String(layer.mediaType)))
        throw new BundleRefusal(`the layer ${layer.digest} is ${String(layer.mediaType)}: push layers uncompressed (pitch deploy does)`);
      total += layer.size;
    }
    // The stored sizes not checked before and the config asked together, AT_ONCE at a time: a
    // round trip's wait in createBuild per AT_ONCE layers, not one a layer, and never a manifest's
    // thousand at once.
    const digests = [...new Set(layers.map((l) => l.digest as string))];
    const sizes = async () => {
      const known = await checkedSizes(digests);
      const asked = digests.filter((d) => !known.has(d));
      const read = new Map<string, number>();
      for (let i = 0; i < asked.length; i += AT_ONCE) {
        const batch = asked.slice(i, i + AT_ONCE);
        const found = await Promise.all(batch.map((d) => registryBlobSize(registry, repository, d)));
        batch.forEach((d, j) => read.set(d, found[j]));
      }
      return { known, read };
    };
    const [{ known, read }, configBytes] = await Promise.all([
      sizes(),
      readBlob(registry, repository, config.digest, Math.min(4 * 1024 * 1024, limits.maxHeldBytes)),
      held,
    ]);
    for (const layer of layers) {
      const stored = known.get(layer.digest as string) ?? read.get(layer.digest as string);
      if (stored !== layer.size)
        throw new BundleRefusal(`the layer ${layer.digest} is declared as ${layer.size} bytes, but its blob has ${stored}`);
    }
    if (total > limits.maxUnpackedBytes) throw new BundleRefusal(`the pushed image unpacks to more than ${limits.maxUnpackedBytes} bytes`);
    return {
      ...describeConfig(configBytes),
      configFile: `${config.digest.slice(7)}.json`,
      layers: layers.length,
      archiveBytes: total + configBytes.length,
      manifestBytes: bytes.length,
      sizesRead: read,
    };
  } catch (err) {
    if (err instanceof RegistryReadError) throw new BundleRefusal(err.message);
    throw err;
  }
}

/** The sent manifest's bytes when they are the ones `digest` names and within the held limit; null otherwise (the registry's are read). */
function sentManifest(sent: string | undefined, digest: string, maxBytes: number): Buffer | null {
  if (sent === undefined) return null;
  const bytes = Buffer.from(sent, 'utf8');
  if (bytes.length > maxBytes || contentDigest(bytes) !== digest) return null;
  return bytes;
}

// Requests for files that are not pages: stylesheets, scripts, images, fonts, source maps, media,
// archives, feeds and machine files. Decided on the normalised path's last segment, so
// `/app.js?v=3` and `/img/logo.PNG` are both assets. `.md` never reaches here as an extension
// (the path step strips it), `.html`, `.txt` (llms.txt) and `.pdf` count as pages: people and
// agents read them.

const ASSET_EXTENSIONS = new Set([
  // styles and scripts
  'css',
  'js',
  'mjs',
  'cjs',
  'map',
  'wasm',
  'ts',
  // images
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'avif',
  'svg',
  'ico',
  'bmp',
  'tif',
  'tiff',
  'apng',
  'heic',
  // fonts
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  // media
  'mp4',
  'webm',
  'mov',
  'mp3',
  'ogg',
  'wav',
  'm4a',
  'flac',
  // feeds, sitemaps and data fetched by the site's own scripts
  'xml',
  'rss',
  'atom',
  'json',
  'webmanifest',
  // downloads
  'zip',
  'gz',
  'tgz',
  'tar',
  'bz2',
  'xz',
  '7z',
  'dmg',
  'exe',
  'msi',
  'deb',
  'rpm',
]);

// Exact paths that are machine files whatever their extension says.
const ASSET_PATHS = new Set([
  '/robots.txt',
  '/favicon.ico',
  '/ads.txt',
  '/security.txt',
  '/.well-known/security.txt',
]);

export function isAssetPath(path: string): boolean {
  if (ASSET_PATHS.has(path)) return true;
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  if (dot <= slash + 1) return false; // no extension, or a dot file like `/.env`
  return ASSET_EXTENSIONS.has(path.slice(dot + 1).toLowerCase());
}

// The name of a job's branch: docwright/<slug of the prompt's first words>-<short job id>. The
// slug is for people scanning a branch list; the id part makes it unique. Everything is lowercase
// ASCII letters, digits and single hyphens, so the result is a valid ref on every code host and
// on case-insensitive file systems.

const PREFIX = 'docwright/';
const MAX_SLUG_LENGTH = 40;
const SHORT_ID_LENGTH = 8;

/** Lowercase ASCII words of `text` joined by hyphens, cut at a word boundary near maxLength. */
export function slugify(text: string, maxLength = MAX_SLUG_LENGTH): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents split off by NFKD: "é" becomes "e"
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > maxLength) {
      // A single first word longer than the limit is cut rather than dropped.
      if (!slug) slug = word.slice(0, maxLength);
      break;
    }
    slug = next;
  }
  return slug;
}

/** The job id's random part, lowercased and shortened (job_3xK9ab... → 3xk9ab..). */
export function shortJobId(jobId: string): string {
  const random = jobId.includes('_') ? jobId.slice(jobId.indexOf('_') + 1) : jobId;
  const short = random
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, SHORT_ID_LENGTH);
  return short || 'job';
}

export function branchName(prompt: string, jobId: string): string {
  const slug = slugify(prompt) || 'change';
  return `${PREFIX}${slug}-${shortJobId(jobId)}`;
}

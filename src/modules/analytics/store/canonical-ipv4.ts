// An address text read as a number, when (and only when) the text is the canonical dotted form
// of an IPv4 address: four decimal octets 0-255 without leading zeros, three dots, nothing else.
// Visitor ids hash the address as sent, so only a text that is the one form of its number may
// be found by the number: "10.0.0.1" and "10.0.0.01" are different senders, and the second is
// not canonical (it is found by its text). A fresh string from JSON.parse carries no hash; a Map
// lookup by it hashes every character (about 36 ns), reading it as a number about 14 ns.

/**
 * The address's 32 bits as a signed integer (192.0.2.1 is -1073741311): a V8 small integer,
 * where the unsigned number of half of all addresses would be a heap number made per call.
 * -1 when the text is not a canonical IPv4 address, and for 255.255.255.255, whose bits are -1
 * (a broadcast address, never a reader's: found by its text like any other, with the same id).
 */
export function canonicalIpv4(text: string): number {
  const length = text.length;
  if (length < 7 || length > 15) return -1;
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === 46) {
      // A dot ends an octet: one to three digits, no leading zero, at most 255.
      if (digits === 0 || octet > 255 || dots === 3) return -1;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else {
      const digit = code - 48;
      if (digit < 0 || digit > 9 || (digits === 1 && octet === 0) || digits === 3) return -1;
      octet = octet * 10 + digit;
      digits++;
    }
  }
  if (dots !== 3 || digits === 0 || octet > 255) return -1;
  return (value * 256 + octet) | 0;
}

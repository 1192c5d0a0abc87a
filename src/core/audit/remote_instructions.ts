/**
 * Instructions that live elsewhere (OWASP AST05): prose that has the agent fetch a URL at
 * run time and then treats what comes back as its orders — "follow it", "its contents are
 * your instructions", "the fetched content contains all the rules", "they supersede this
 * file". Two facts in one passage (a section of the document, at most a few paragraphs):
 * something is retrieved from a URL, and the retrieved text is given authority. A skill
 * that names an API it calls, or fetches a page to summarise it, gives the page no authority.
 */

/** A URL, with a retrieval verb within a sentence or two of it. */
const URL = /\b(?:https?):\/\/[^\s"'<>()`]+/g;
const RETRIEVE =
  /\b(?:fetch|download|load|pull|retrieve|get|read|curl|wget|webfetch|web_fetch|open|visit|grab|request)(?:e?s|ed|ing)?\b/i;

/** The retrieved text given authority over the agent. */
const AUTHORITY: readonly RegExp[] = [
  // "follow it", "apply them", "do exactly what it says", "obey the fetched rules"
  /\b(?:follow|obey|adopt|comply\s+with|do\s+(?:exactly\s+)?(?:what|whatever))\b[^.\n]{0,40}?\b(?:it|them|its|their|there|that\s+(?:file|page|document)|the\s+(?:fetched|downloaded|retrieved|remote|online|latest|live|new)\s+\w+|what\s+(?:it|they)\s+says?)\b(?!\s+(?:below|above|here|in\s+this))/gi,
  // "the fetched content contains all the rules", "the downloaded guide holds every rule"
  /\b(?:fetched|downloaded|retrieved|remote|online|live)\s+(?:content|text|file|page|document|guide|guidelines|rules|instructions|prompt|checklist|conventions|version)\b[^.\n]{0,60}?\b(?:contains?|holds?|has|have|are|is|defines?|lists?|provides?|gives?)\b[^.\n]{0,40}?\b(?:rules?|instructions?|prompts?|format|steps|checklist)\b/gi,
  // "its contents are your instructions"
  /\b(?:its|their|the)\s+contents?\b[^.\n]{0,30}?\b(?:are|is|become)\s+(?:your|the)\s+(?:instructions|rules|prompt|orders|system\s+prompt)\b/gi,
  // "they supersede anything written here", "in place of these notes"
  /\b(?:supersedes?|overrides?|takes?\s+precedence\s+over|in\s+place\s+of|replaces?)\s+(?:anything|everything|all|these|this|the\s+(?:instructions|notes|rules)|what(?:ever)?)\b/gi,
  // "treat the fetched text as your instructions"
  /\btreat\b[^.\n]{0,40}?\bas\s+(?:your|the)\s+(?:instructions|rules|prompt|system\s+prompt|orders)\b/gi,
  // "retrieve the latest system prompt from …"
  /\b(?:fetch|download|load|pull|retrieve|get)\w*\s+(?:the\s+)?(?:latest\s+|current\s+|newest\s+|live\s+)?(?:system\s+prompt|prompt|instructions)\s+(?:from|at)\b/gi,
];

/** Offsets (in `text`) of authority phrases that stand in a passage retrieving a URL. */
export function remoteInstructionSpots(text: string): number[] {
  const urls = [...text.matchAll(URL)].map((m) => m.index!);
  if (urls.length === 0) return [];
  const out: number[] = [];
  for (const pattern of AUTHORITY) {
    for (const m of text.matchAll(pattern)) {
      const at = m.index!;
      const passage = passageAround(text, at);
      if (!anyIn(urls, passage.start, passage.end)) continue;
      if (!RETRIEVE.test(text.slice(passage.start, passage.end))) continue;
      out.push(at);
    }
  }
  return out.sort((a, b) => a - b);
}

/** Whether a sorted offset lies in `[start, end)` (binary search: long documents stay linear). */
function anyIn(sorted: readonly number[], start: number, end: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < start) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo]! < end;
}

/** The section around `at`: up to 600 characters each way, not across a heading. */
function passageAround(text: string, at: number): { start: number; end: number } {
  let start = Math.max(0, at - 600);
  const heading = text.slice(start, at).lastIndexOf("\n#");
  if (heading !== -1) start += heading + 1;
  let end = Math.min(text.length, at + 600);
  const next = text.slice(at, end).indexOf("\n#");
  if (next !== -1) end = at + next;
  return { start, end };
}

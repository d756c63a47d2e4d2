/**
 * The anchor GitHub gives a heading (github-slugger's rule): lower case,
 * every character that is not a letter, a mark, a digit, a connector
 * (`_`), a hyphen or a space dropped, each space a hyphen; a repeated slug
 * gets `-1`, `-2`, … The site uses the same function for its anchors, so a
 * link written for GitHub (`commands.md#outcomes`) works in the site too.
 */
export function githubSlug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** Slugs for a page's headings in order, a repeated one numbered as GitHub numbers it (github-slugger's loop). */
export class SlugCounter {
  private readonly occurrences = new Map<string, number>();

  next(heading: string): string {
    const original = githubSlug(heading);
    let slug = original;
    while (this.occurrences.has(slug)) {
      const n = this.occurrences.get(original)! + 1;
      this.occurrences.set(original, n);
      slug = `${original}-${n}`;
    }
    this.occurrences.set(slug, 0);
    return slug;
  }
}

/**
 * A page's own skip link, offered right after "Skip to main content" (the step editor's "Skip to the
 * first question"). Following it runs `focus`, which moves keyboard focus to where the page says;
 * when that finds nothing yet, the link's `href` is followed as usual.
 */
export interface PageSkipLink {
  label: string;
  href: string;
  focus: () => boolean;
}

class SkipLinks {
  page = $state<PageSkipLink | null>(null);

  /** Offers `link` until the returned function is called (an effect's cleanup). */
  offer(link: PageSkipLink): () => void {
    this.page = link;
    return () => {
      if (this.page === link) this.page = null;
    };
  }
}

export const skipLinks = new SkipLinks();

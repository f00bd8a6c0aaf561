/**
 * Which of a page's dialogs is open, and for what: one at a time. The dialog shown stays mounted
 * (with its subject) after it closes, so bits-ui can hand focus back; the next one replaces it.
 */
export class OpenDialog<Kind extends string, Subject> {
  kind = $state<Kind | null>(null);
  subject = $state.raw<Subject | null>(null);
  /** Bound to the shown dialog's `open`. */
  open = $state(false);

  show(kind: Kind, subject: Subject | null = null): void {
    this.kind = kind;
    this.subject = subject;
    this.open = true;
  }
}

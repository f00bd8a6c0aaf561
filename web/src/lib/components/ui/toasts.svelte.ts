export interface ToastAction {
  label: string;
  run: () => void;
}

export interface Toast {
  id: number;
  message: string;
  tone: 'info' | 'success' | 'error';
  /** One thing to do about it (Undo), offered for as long as the toast shows. */
  action?: ToastAction;
}

/** Short confirmations and failures of actions, announced politely (errors assertively). */
class Toasts {
  items = $state<Toast[]>([]);
  #next = 1;

  show(message: string, tone: Toast['tone'] = 'info', ms = tone === 'error' ? 10_000 : 5_000, action?: ToastAction): void {
    const id = this.#next++;
    this.items.push({ id, message, tone, ...(action ? { action } : {}) });
    setTimeout(() => this.dismiss(id), ms);
  }

  dismiss(id: number): void {
    this.items = this.items.filter((toast) => toast.id !== id);
  }
}

export const toasts = new Toasts();

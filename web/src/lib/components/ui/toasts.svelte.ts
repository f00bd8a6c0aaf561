export interface Toast {
  id: number;
  message: string;
  tone: 'info' | 'success' | 'error';
}

/** Short confirmations and failures of actions, announced politely (errors assertively). */
class Toasts {
  items = $state<Toast[]>([]);
  #next = 1;

  show(message: string, tone: Toast['tone'] = 'info', ms = tone === 'error' ? 10_000 : 5_000): void {
    const id = this.#next++;
    this.items.push({ id, message, tone });
    setTimeout(() => this.dismiss(id), ms);
  }

  dismiss(id: number): void {
    this.items = this.items.filter((toast) => toast.id !== id);
  }
}

export const toasts = new Toasts();

export function formatMoney(amount: number, currency = 'NZD'): string {
  return new Intl.NumberFormat('en-NZ', { style: 'currency', currency }).format(amount);
}

export function formatDate(iso: string): string {
  return new Intl.DateTimeFormat('en-NZ', { dateStyle: 'medium' }).format(new Date(iso));
}

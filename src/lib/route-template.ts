/** Path segments that are ids (`acc_…`, `payment_…`, numbers) become `:id`: labels and span names never carry one. */
export function routeTemplate(path: string): string {
  return path
    .split('?')[0]!
    .split('/')
    .map((segment) => (/^[a-z]+_[A-Za-z0-9_-]+$|^\d+$/.test(segment) ? ':id' : segment))
    .join('/');
}

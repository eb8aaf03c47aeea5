/**
 * One value per HTTP client, made on first use: what every case sent through the same client shares, that
 * is, what one run shares (its gate of open runs, its ledger of runIds); another run, another client, has its own.
 */
export function perClient<T>(make: () => T): (client: object) => T {
  const values = new WeakMap<object, T>();
  return (client) => {
    let value = values.get(client);
    if (value === undefined) {
      value = make();
      values.set(client, value);
    }
    return value;
  };
}

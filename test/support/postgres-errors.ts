import pg from 'pg';

async function run(url: string, statements: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statements);
  } finally {
    await client.end();
  }
}

/**
 * Runs `plpgsql` in a trigger before every brand write, on the server: an error it raises reaches the
 * store through the real driver exactly as the condition its SQLSTATE names (a full disk, too many
 * connections…) would, without bringing that condition about on a shared server. Returns the undo.
 */
export async function onBrandWrite(url: string, plpgsql: string): Promise<() => Promise<void>> {
  await run(
    url,
    `create or replace function on_brand_write() returns trigger language plpgsql as $$
       begin ${plpgsql}; return new; end $$;
     create trigger on_brand_write before update on brand_profiles
       for each row execute function on_brand_write();`,
  );
  return () => run(url, 'drop trigger on_brand_write on brand_profiles; drop function on_brand_write();');
}

/** A brand write failing on the server with `sqlstate`. */
export function failBrandWritesWith(url: string, sqlstate: string): Promise<() => Promise<void>> {
  return onBrandWrite(url, `raise exception 'injected by the test' using errcode = '${sqlstate}'`);
}

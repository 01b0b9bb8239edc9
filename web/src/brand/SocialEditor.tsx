import { TextField } from '../components/fields';
import { capitalize } from '../format';
import { rowKey, type SocialRow } from './model';
import { AddButton, RowActions } from './RowActions';
import { removeAt, replaceAt, type SectionProps } from './rows';

/** Networks people usually list; any other lowercase name works too. */
const SUGGESTED_NETWORKS = [
  'website',
  'instagram',
  'linkedin',
  'facebook',
  'x',
  'tiktok',
  'youtube',
  'pinterest',
  'threads',
  'bluesky',
];

export function SocialEditor({ value, onChange, errorAt, readOnly }: SectionProps<SocialRow[]>) {
  return (
    <>
      <datalist id="social-networks">
        {SUGGESTED_NETWORKS.map((network) => (
          <option key={network} value={network} />
        ))}
      </datalist>
      {value.length === 0 && <p className="empty">No social links yet.</p>}
      {value.map((row, index) => {
        const network = row.network.trim();
        // Until the network is named, its URL is a "Profile URL" (not "…network…", which "Network" would match).
        const title = network === '' ? 'Profile' : capitalize(network);
        return (
          <fieldset key={row.key} className="row-card row-social">
            <legend className="visually-hidden">{title} link</legend>
            <TextField
              label="Network"
              value={row.network}
              placeholder="instagram"
              spellCheck={false}
              list="social-networks"
              error={errorAt(`social[${String(index)}].network`)}
              className="field-narrow"
              onChange={(next) => {
                onChange(replaceAt(value, index, { ...row, network: next }));
              }}
            />
            <TextField
              label={`${title} URL`}
              type="url"
              value={row.url}
              placeholder="https://…"
              error={errorAt(`social.${network}`)}
              className="grow"
              onChange={(url) => {
                onChange(replaceAt(value, index, { ...row, url }));
              }}
            />
            {!readOnly && (
              <RowActions
                name={`${title} link`}
                onRemove={() => {
                  onChange(removeAt(value, index));
                }}
              />
            )}
          </fieldset>
        );
      })}
      {!readOnly && (
        <AddButton
          label="Add social link"
          onClick={() => {
            onChange([...value, { key: rowKey(), network: '', url: '' }]);
          }}
        />
      )}
    </>
  );
}

import { Alert, Button, CopyButton, Group, TextInput } from '@mantine/core';

/** A secret the API returns once (an API key, an OAuth client secret): copy it now, it is not shown again. */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone?: () => void }) {
  return (
    <Alert color="yellow" title="Copy it now; it will not be shown again." role="alert">
      <Group align="flex-end" wrap="nowrap">
        <TextInput label={label} value={value} readOnly style={{ flex: 1 }} ff="monospace" onFocus={(e) => e.currentTarget.select()} />
        <CopyButton value={value}>{({ copied, copy }) => <Button onClick={copy} variant="light">{copied ? 'Copied' : 'Copy'}</Button>}</CopyButton>
        {onDone && (
          <Button variant="subtle" onClick={onDone}>
            Done
          </Button>
        )}
      </Group>
    </Alert>
  );
}

import { Button, Group, Text } from '@mantine/core';
import { useQuery, type QueryKey } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { QueryState } from '../../components/QueryState';

/** A PDF the API answered (bytes) and the file name of its Content-Disposition. */
export interface PdfFile {
  blob: Blob;
  filename: string;
}

/** The file name of `attachment; filename="INV-0001.pdf"`, else `fallback`. */
export function filenameOf(response: Response | undefined, fallback: string): string {
  const header = response?.headers.get('content-disposition') ?? '';
  return /filename="([^"]+)"/.exec(header)?.[1] ?? fallback;
}

/**
 * A document's PDF shown in the page, with a download button. The API's download operation
 * needs the session's tenant header, which a plain link or frame cannot send, so the bytes are
 * fetched through the SDK and shown from a `blob:` URL (the dashboard's CSP allows such frames).
 */
export function PdfDocument({ title, queryKey, load }: { title: string; queryKey: QueryKey; load: () => Promise<PdfFile> }) {
  const pdf = useQuery({ queryKey, queryFn: load, staleTime: Infinity });
  return <QueryState query={pdf}>{(file) => <PdfFrame title={title} file={file} />}</QueryState>;
}

function PdfFrame({ title, file }: { title: string; file: PdfFile }) {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    const objectUrl = URL.createObjectURL(file.blob);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [file.blob]);
  if (!url) return null;
  return (
    <>
      <Group justify="space-between" mb="xs">
        <Text size="sm" c="gray.8">
          {file.filename}, {Math.ceil(file.blob.size / 1024)} KiB
        </Text>
        <Button component="a" href={url} download={file.filename}>
          Download PDF
        </Button>
      </Group>
      <iframe src={url} title={title} style={{ width: '100%', height: 720, border: '1px solid var(--mantine-color-gray-4)', borderRadius: 4 }} />
    </>
  );
}

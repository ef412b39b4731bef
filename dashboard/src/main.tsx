import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './app/overrides.css';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';

createRoot(document.getElementById('root')!).render(<App />);

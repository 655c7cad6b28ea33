import { render } from 'preact';
import { App } from './app.js';
import { loadUPlot } from './charts/Chart.js';
import './styles.css';

void loadUPlot();
render(<App />, document.getElementById('app')!);

import { calibrate, openedTimes } from './tracker-eval';

describe('tracker eval helpers [TRACKER-04]', () => {
  it('calibrate: the lowest threshold that flags at most the allowed share of top scores', () => {
    expect(calibrate([0.9, 0.5, 0.3, 0.2], 0.25)).toBe(0.51);
    expect(calibrate([0.9, 0.5, 0.3, 0.2], 0)).toBe(0.91);
    expect(calibrate([], 0.02)).toBe(0.01);
  });

  it('opened times: recorded dates kept, the rest interpolated by issue number, order strict', () => {
    const times = openedTimes([
      { number: 10, url: '', title: '', body: '', opened: '2024-01-01' },
      { number: 20, url: '', title: '', body: '', opened: null },
      { number: 30, url: '', title: '', body: '', opened: '2024-01-21' },
    ]);
    expect(times.get(10)!.slice(0, 10)).toBe('2024-01-01');
    expect(times.get(20)!.slice(0, 10)).toBe('2024-01-11');
    expect(times.get(10)! < times.get(20)! && times.get(20)! < times.get(30)!).toBe(true);
  });
});

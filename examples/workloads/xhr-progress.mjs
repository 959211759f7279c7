// The upload most progress bars are made of: XMLHttpRequest, because only XHR reports
// upload progress, with a <progress> element fed from upload.onprogress.
export const unobserved = 1;

function progressBar() {
  let bar = document.getElementById('module-progress');
  if (!bar) {
    bar = document.createElement('progress');
    bar.id = 'module-progress';
    document.body.append(bar);
  }
  bar.value = 0;
  return bar;
}

export default function upload({ blob, size, url, signal }) {
  const bar = progressBar();
  bar.max = size;
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    // Set before send(): a browser reports upload progress only to a listener that is
    // there when the request starts.
    xhr.upload.onprogress = (e) => {
      bar.value = e.loaded;
    };
    xhr.onload = () => (xhr.status === 200 ? resolve() : reject(new Error(`the sink answered HTTP ${xhr.status}`)));
    xhr.onerror = () => reject(new Error('XMLHttpRequest failed'));
    xhr.onabort = () => reject(new Error('XMLHttpRequest aborted'));
    signal.addEventListener('abort', () => xhr.abort());
    xhr.open('PUT', url);
    xhr.send(blob);
  });
}

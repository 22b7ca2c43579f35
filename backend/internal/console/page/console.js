// The console page: asks the password, then carries a terminal (xterm.js, DOM renderer, so the
// screen's text is in the page) over a WebSocket to the server's shell. Binary messages are
// the terminal's bytes both ways; text messages are JSON: the password first, then resizes
// from the page, and {"type":"ready"} from the server once the password is right.
(function () {
  'use strict';
  var form = document.getElementById('login');
  var input = document.getElementById('password');
  var status = document.getElementById('status');
  var screen = document.getElementById('terminal');
  var term = null;

  // Close codes of the server (package console).
  var WRONG_PASSWORD = 4001, ENDED = 4010, UNREACHABLE = 4011;

  function say(text) { status.textContent = text; }

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    connect(input.value);
  });

  function socketURL() {
    var scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return scheme + '//' + location.host + location.pathname.replace(/\/+$/, '') + '/ws';
  }

  function connect(password) {
    var ws = new WebSocket(socketURL());
    ws.binaryType = 'arraybuffer';
    var ready = false;
    say('Connecting…');
    ws.onopen = function () {
      ws.send(JSON.stringify({ password: password, cols: 80, rows: 24 }));
    };
    ws.onmessage = function (ev) {
      if (typeof ev.data === 'string') {
        var m = JSON.parse(ev.data);
        if (m.type === 'ready' && !ready) {
          ready = true;
          say('');
          start(ws);
        }
        return;
      }
      if (term) { term.write(new Uint8Array(ev.data)); }
    };
    ws.onclose = function (ev) {
      switch (ev.code) {
        case WRONG_PASSWORD:
          say('Wrong password.');
          input.value = '';
          input.focus();
          break;
        case ENDED:
          form.hidden = true;
          say('This console has ended: ' + ev.reason + '. Ask for a new one with the server\'s console action.');
          break;
        case UNREACHABLE:
          say(ev.reason);
          break;
        default:
          say(ready ? 'Disconnected (' + (ev.reason || 'the connection closed') + '). Reload the page to log in again.'
            : 'Could not connect to the console.');
      }
      if (term) { term.options.disableStdin = true; }
    };
  }

  function start(ws) {
    form.hidden = true;
    screen.hidden = false;
    term = new Terminal({ cursorBlink: true, fontFamily: 'DejaVu Sans Mono, monospace', fontSize: 15, scrollback: 2000 });
    var fit = new FitAddon.FitAddon();
    term.loadAddon(fit);
    term.open(screen);
    var send = function (data) {
      if (ws.readyState === WebSocket.OPEN) { ws.send(data); }
    };
    term.onResize(function (size) {
      send(JSON.stringify({ type: 'resize', cols: size.cols, rows: size.rows }));
    });
    fit.fit();
    send(JSON.stringify({ type: 'resize', cols: term.cols, rows: term.rows }));
    window.addEventListener('resize', function () { fit.fit(); });
    var encoder = new TextEncoder();
    term.onData(function (data) { send(encoder.encode(data)); });
    term.onBinary(function (data) {
      var bytes = new Uint8Array(data.length);
      for (var i = 0; i < data.length; i++) { bytes[i] = data.charCodeAt(i) & 255; }
      send(bytes);
    });
    term.focus();
  }
}());

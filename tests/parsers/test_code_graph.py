"""Definitions and references from the real tree-sitter grammars, one small fixture per language."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

import pytest

from parsers.code.graph import normalize_module
from parsers.code.parser import parse
from parsers.model import CodeGraph, Reference
from parsers.options import ParseOptions
from parsers.source import SourceFile


def graph_of(name: str, text: str) -> CodeGraph:
    data = textwrap.dedent(text).lstrip("\n").encode()
    (doc,) = parse(SourceFile(Path(name), name, data, hashlib.sha256(data).hexdigest()), ParseOptions())
    assert doc.graph is not None
    return doc.graph


def defs(graph: CodeGraph) -> set[tuple[str, tuple[int, int]]]:
    return {(d.symbol, d.lines) for d in graph.definitions}


def refs(graph: CodeGraph, kind: str = "call") -> set[tuple[str, int, str | None]]:
    return {(r.name, r.line, r.symbol) for r in graph.references if r.kind == kind}


def ref(graph: CodeGraph, name: str, line: int) -> Reference:
    (found,) = [r for r in graph.references if r.name == name and r.line == line and r.kind != "import"]
    return found


PYTHON = """
    import numpy as np
    from pkg.client import chat as talk
    from . import util


    class Bot(Base):
        @staticmethod
        def reply(text: str) -> Answer:
            return talk(text)

        def run(self):
            self.reply(np.mean([1]))
            util.helper(
                x=1,
            ).strip()


    def main():
        Bot().run()
    """


def test_python_definitions_references_and_alias():
    g = graph_of("bot.py", PYTHON)
    assert defs(g) == {("Bot", (6, 15)), ("Bot.reply", (8, 9)), ("Bot.run", (11, 15)), ("main", (18, 19))}
    assert refs(g) == {
        ("chat", 9, "Bot.reply"),  # talk() is chat() from pkg.client
        ("reply", 12, "Bot.run"),
        ("mean", 12, "Bot.run"),
        ("helper", 13, "Bot.run"),
        ("strip", 15, "Bot.run"),  # on the line of its name, not of the chain's start
        ("Bot", 19, "main"),
        ("run", 19, "main"),
    }
    assert ref(g, "chat", 9).qualifier == "pkg.client" and not ref(g, "chat", 9).member
    assert ref(g, "mean", 12).qualifier == "numpy"
    assert ref(g, "helper", 13).qualifier == "util"
    assert ref(g, "reply", 12).member and ref(g, "reply", 12).qualifier is None
    assert {("Base", 6, "Bot"), ("str", 8, "Bot.reply"), ("Answer", 8, "Bot.reply")} <= refs(g, "type")
    assert {(r.name, r.line, r.qualifier) for r in g.references if r.kind == "import"} == {
        ("numpy", 1, None),
        ("chat", 2, "pkg.client"),
        ("util", 3, None),
    }


JAVASCRIPT = """
    import { chat as talk } from './lib/client.js';
    import * as fs from 'node:fs';

    class Reader extends Base {
      read(path) {
        return fs.readFileSync(path);
      }
    }

    function main() {
      talk(new Reader().read('x'));
    }
    """


def test_javascript_definitions_references_and_alias():
    g = graph_of("main.js", JAVASCRIPT)
    assert defs(g) == {("Reader", (4, 8)), ("Reader.read", (5, 7)), ("main", (10, 12))}
    assert refs(g) == {
        ("readFileSync", 6, "Reader.read"),
        ("chat", 11, "main"),
        ("Reader", 11, "main"),
        ("read", 11, "main"),
    }
    assert ref(g, "chat", 11).qualifier == "lib.client"
    assert ref(g, "readFileSync", 6).qualifier == "node:fs"
    assert ("Base", 4, "Reader") in refs(g, "type")


TYPESCRIPT = """
    import { Client as Api } from "./api";

    interface Options { retries: number }

    export class Service {
      constructor(private api: Api) {}

      fetch(opts: Options): Promise<Result> {
        return this.api.get(opts);
      }
    }

    export function make(): Service {
      return new Service(new Api());
    }
    """


def test_typescript_definitions_types_and_alias():
    g = graph_of("svc.ts", TYPESCRIPT)
    expected = {("Options", (3, 3)), ("Service", (5, 11)), ("Service.fetch", (8, 10)), ("make", (13, 15))}
    assert expected <= defs(g)
    assert {("get", 9, "Service.fetch"), ("Service", 14, "make"), ("Client", 14, "make")} <= refs(g)
    assert ref(g, "Client", 14).qualifier == "api"  # new Api() constructs Client from ./api
    types = refs(g, "type")
    assert {("Options", 8, "Service.fetch"), ("Result", 8, "Service.fetch"), ("Service", 13, "make")} <= types
    assert ("Service", 5, "Service") not in types  # the definition's own name is not a use


GO = """
    package main

    import (
    \tcl "github.com/acme/client"
    \t"fmt"
    )

    type Server struct {
    \tc *cl.Conn
    }

    func (s *Server) Serve() error {
    \tfmt.Println("x")
    \treturn cl.Dial(s.c)
    }

    func main() {
    \ts := Server{}
    \ts.Serve()
    }
    """


def test_go_definitions_references_and_package_alias():
    g = graph_of("main.go", GO)
    assert defs(g) == {("Server", (8, 10)), ("Server.Serve", (12, 15)), ("main", (17, 20))}
    assert refs(g) == {("Println", 13, "Server.Serve"), ("Dial", 14, "Server.Serve"), ("Serve", 19, "main")}
    assert ref(g, "Dial", 14).qualifier == "github.com.acme.client"  # through the alias `cl`
    assert ref(g, "Serve", 19).member
    assert {("Conn", 9, "Server"), ("Server", 18, "main")} <= refs(g, "type")


JAVA = """
    import java.util.List;
    import static org.acme.Util.check;

    public class Store {
        private List<Item> items;

        public void add(Item item) {
            check(item);
            items.add(new Item(item));
        }
    }
    """


def test_java_definitions_references_and_static_import():
    g = graph_of("Store.java", JAVA)
    assert defs(g) == {("Store", (4, 11)), ("Store.add", (7, 10))}
    assert refs(g) == {("check", 8, "Store.add"), ("add", 9, "Store.add"), ("Item", 9, "Store.add")}
    assert ref(g, "check", 8).qualifier == "org.acme.Util"
    assert {("List", 5, "Store"), ("Item", 5, "Store"), ("Item", 7, "Store.add")} <= refs(g, "type")


RUST = """
    use crate::net::{connect as dial, Socket};

    pub struct Pool {
        sockets: Vec<Socket>,
    }

    impl Pool {
        pub fn open(&mut self) -> Socket {
            let s = dial("x");
            println!("{}", self.sockets.len());
            Socket::wrap(s)
        }
    }
    """


def test_rust_definitions_references_and_use_alias():
    g = graph_of("pool.rs", RUST)
    assert defs(g) == {("Pool", (3, 5)), ("Pool", (7, 13)), ("Pool.open", (8, 12))}
    assert refs(g) == {
        ("connect", 9, "Pool.open"),
        ("println", 10, "Pool.open"),  # len() inside the macro's tokens is not parsed, so not seen
        ("wrap", 11, "Pool.open"),
    }
    assert ref(g, "connect", 9).qualifier == "net"
    assert ref(g, "wrap", 11).qualifier == "net.Socket"  # Socket was imported from crate::net
    assert {("Socket", 4, "Pool"), ("Pool", 7, "Pool"), ("Socket", 8, "Pool.open")} <= refs(g, "type")


C = """
    #include "buffer.h"

    typedef struct { int n; } Counter;

    static int grow(Counter *c) {
        return c->n + 1;
    }

    int main(void) {
        Counter c;
        buffer_init(&c);
        return grow(&c);
    }
    """


def test_c_definitions_references_and_include():
    g = graph_of("main.c", C)
    assert {("grow", (5, 7)), ("main", (9, 13))} <= defs(g)
    assert refs(g) == {("buffer_init", 11, "main"), ("grow", 12, "main")}
    assert {("Counter", 5, "grow"), ("Counter", 10, "main")} <= refs(g, "type")
    assert ("Counter", 3, None) not in refs(g, "type")  # the typedef names it
    assert ("buffer", 1, None) in {(r.name, r.line, r.symbol) for r in g.references if r.kind == "import"}


CPP = """
    #include <vector>

    namespace net {
    class Conn {
     public:
      void send(int n) { log::write(n); }
    };
    }

    int main() {
      auto *c = new net::Conn();
      c->send(std::max(1, 2));
      return 0;
    }
    """


def test_cpp_definitions_references_and_scopes():
    g = graph_of("main.cpp", CPP)
    assert {("net", (3, 8)), ("net.Conn", (4, 7)), ("net.Conn.send", (6, 6)), ("main", (10, 14))} <= defs(g)
    assert {("write", 6, "net.Conn.send"), ("send", 12, "main"), ("max", 12, "main")} <= refs(g)
    assert ref(g, "write", 6).qualifier == "log"
    assert ref(g, "max", 12).qualifier == "std"
    assert ref(g, "send", 12).member


@pytest.mark.parametrize(
    ("written", "dotted"),
    [
        ("./lib/client.js", "lib.client"),
        ("../api", "api"),
        ("crate::net::Socket", "net.Socket"),
        ("github.com/spf13/cobra", "github.com.spf13.cobra"),
        ("..pkg.mod", "pkg.mod"),
    ],
)
def test_module_names_become_dotted_segments(written, dotted):
    assert normalize_module(written) == dotted


def test_deeply_nested_code_still_yields_a_graph():
    # 3,000 nested blocks: the reference walk is a tree-sitter query, the definition walk a loop
    text = "def f():\n" + "".join("    " * (i + 1) + "if x:\n" for i in range(300)) + "    " * 301 + "g()\n"
    g = graph_of("deep.py", text)
    assert ("g", 302, "f") in refs(g)


def test_deeply_nested_rust_use_lists_do_not_recurse():
    text = "use " + "a::{" * 3000 + "b" + "}" * 3000 + ";\nfn f() { b(); }\n"
    g = graph_of("deep.rs", text)
    assert ("b", 2, "f") in refs(g)

import sys,json,copy,csv,subprocess,collections,math,statistics as st
H='/work/main/build/sim/cli/hopsim'
NEAR=['xwrite_bw','xcopy_bw','xcma_bw','xread_bw']
APART=[k+'_apart' for k in NEAR]
def load_dump(fn):
    rows=collections.defaultdict(list)  # (ex,size,table)->[(time,b,a)]
    for line in open(fn):
        e,s,t,k,tm,b,a=line.split()
        rows[(int(e),int(s),int(t))].append((float(tm),float(b),float(a)))
    return rows
def split_at(rows):
    pr=sorted(x for (e,s,t),v in rows.items() if t in (0,2) for r in v for x in (r[1],r[2]) if x>0)
    best=0;at=math.inf
    for i in range(1,len(pr)):
        q=pr[i]/pr[i-1]
        if q>best:
            best=q
            if q>2.5: at=math.sqrt(pr[i]*pr[i-1])
    return at if best>2.5 else math.inf
def tables(rows,sizes,est):
    sp=split_at(rows)
    exs=sorted(set(e for e,_,_ in rows))
    out={c:{t:[0.0]*len(sizes) for t in range(4)} for c in (0,1)}
    for i,s in enumerate(sizes):
        for t in range(4):
            per=[]  # per exchange, per class lists
            pooled={0:[],1:[]}
            meds={0:[],1:[]}
            for e in exs:
                v=rows.get((e,s,t),[])
                if not v: continue
                cls={0:[],1:[]}
                for tm,b,a in v:
                    if (b>sp)!=(a>sp): continue
                    cls[1 if a>sp else 0].append(tm)
                need=max(3,len(v)//8)
                for c in (0,1):
                    if len(cls[c])>=need:
                        srt=sorted(cls[c]); meds[c].append(s/srt[len(srt)//2])
                    pooled[c]+=cls[c]
            for c in (0,1):
                if est=='maxmed':
                    out[c][t][i]=max(meds[c]) if meds[c] else 0.0
                elif est=='pooled':
                    v=sorted(pooled[c]); out[c][t][i]=s/v[len(v)//2] if len(v)>=3 else 0.0
                elif est=='medmed':
                    out[c][t][i]=st.median(meds[c]) if meds[c] else 0.0
                elif est=='meanrate':
                    v=pooled[c]; out[c][t][i]=s/ (sum(v)/len(v)) if len(v)>=3 else 0.0
    return out
def fill(into,other):
    r=[a/b for a,b in zip(into,other) if a>0 and b>0]
    r=sorted(r); m=1.0
    if r: n=len(r); m=r[n//2] if n%2 else 0.5*(r[n//2-1]+r[n//2])
    return [a if a>0 else (b*m if b>0 else 0) for a,b in zip(into,other)]
def simulate(prof,fn):
    json.dump(prof,open(fn+'.json','w'))
    subprocess.run([H,'host','simulate','--profile',fn+'.json','--csv',fn+'.csv'],stdout=subprocess.DEVNULL,check=True)
    return {(r['procs'],r['size'],r['transport']):float(r['predicted_MBps'] if 'predicted_MBps' in r else r['MBps']) for r in csv.DictReader(open(fn+'.csv'))}
def run(name,est):
    prof=json.load(open(name+'.json')); P=prof['params']
    sizes=P['sizes']['value'] if 'sizes' in P else None
    rows=load_dump(name+'.dump')
    if sizes is None: sizes=sorted(set(s for _,s,_ in rows))
    tb=tables(rows,sizes,est)
    q=copy.deepcopy(prof); Q=q['params']
    has_apart='apart_handover' in P
    for t in range(4):
        near=tb[0][t]; apart=tb[1][t]
        if has_apart:
            n2=fill(near,apart); a2=fill(apart,near); near,apart=n2,a2
            Q[APART[t]]['value']=apart
        elif not any(near): near=apart
        if P[NEAR[t]]['value'] and not any(P[NEAR[t]]['value']): continue  # cma refused
        Q[NEAR[t]]['value']=near
    pn=simulate(q,'/tmp/s20/rs-n')
    pa=None
    if has_apart:
        A=copy.deepcopy(q); AP=A['params']
        for t in range(4): AP[NEAR[t]]['value']=Q[APART[t]]['value']
        extra=max(0.0,P['apart_handover']['value']-P['c2c_latency']['value'])
        for k in ['step8_double','step8_cma','step8_zero']:
            if AP[k]['value']>0: AP[k]['value']+=extra
        AP['c2c_latency']['value']=max(P['c2c_latency']['value'],P['apart_handover']['value'])
        pa=simulate(A,'/tmp/s20/rs-a')
    res=[]
    for r in csv.DictReader(open(name+'.csv')):
        k=(r['procs'],r['size'],r['transport'])
        pred=pa[k] if (r['modelled_apart']=='1' and pa) else pn[k]
        nat=float(r['native_MBps']); err=pred/nat-1
        res.append((r['transport'],abs(err)<=0.25,err,float(r['predicted_MBps'])))
    return res
if __name__=='__main__':
    for name in sys.argv[2:]:
        res=run(name,sys.argv[1])
        by=collections.Counter(); tot=collections.Counter()
        for t,w,e,p in res: by[t]+=w; tot[t]+=1
        print(name,sys.argv[1],sum(by.values()),' '.join('%s=%d/%d'%(t[:4],by[t],tot[t]) for t in tot))
